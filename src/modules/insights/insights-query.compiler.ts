import {
  COLUMNS,
  ColumnSpec,
  DimensionColumn,
  DISPLAY_CONTEXTS,
  EVENT_TYPES,
  Interval,
  INTERVALS,
  Operator,
  OPERATORS,
  PAGE_PARTS,
  MINUTE_ROLLUP_TABLES,
  ROLLUP_TABLES,
  RollupLevel,
  UNSUPPORTED_COLUMNS,
} from './insights-columns';
import { HyperLogLog } from './insights-hll';
import { insightsError } from './insights.errors';

/**
 * Compiles an aggregate request (`SiteInsightsQueryEventsAggregation`) into ONE parameterized SQL
 * statement. Every fragment of SQL comes from `insights-columns.ts` or from this file; the request
 * only chooses among them, and every value it carries (site, range, filter values, a claim's name,
 * the limit) is a bind parameter. Anything unknown is refused with a 400 naming where it is.
 *
 * The source of rows is raw events, or, when every column the query touches is kept by a rollup, the
 * rollups (hours, minutes, and the minutes the range cuts when their folded events all lie inside it)
 * plus the events not folded yet: the same answer at a cost that follows the range, not the volume.
 */

export const RANGE_PRESETS = ['lastYear', 'last3Months', 'last30Days', 'last7Days', 'last24Hours'] as const;
export const MAX_QUERY_COLUMNS = 50;

export interface AggregateRequest {
  select?: unknown[];
  where?: unknown[];
  groupBy?: unknown[];
  order?: unknown;
  range: unknown;
  limit?: number;
}

/** One column of the answer: where its values are in each row and how they become JSON. */
export interface OutputColumn {
  column: string;
  claim?: string;
  aliases: string[];
  decode: (values: unknown[]) => unknown;
}

export interface CompiledAggregate {
  sql: string;
  params: unknown[];
  outputs: OutputColumn[];
  /** What the rows are read from: raw events only, or a rollup for whole hours (+ raw at the edges). */
  source: 'raw' | RollupLevel;
  range: { from: Date; to: Date };
}

export interface CompileOptions {
  siteId: string;
  now: Date;
  /** False forces raw events (the rollup-vs-raw test, and a fallback switch). */
  useRollups?: boolean;
  /** The fold's watermark, read in the same snapshot as the query runs in (events at or above it are raw). */
  watermark?: string;
}

interface ColumnRef {
  key: string;
  column: string;
  spec: ColumnSpec;
  interval?: Interval;
  claim?: string;
}

interface Filter {
  ref: ColumnRef;
  operator: Operator;
  values: unknown[];
  path: string;
}

/** Collects bind parameters; returns each one's placeholder (`$n`). */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown, cast = ''): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}

const invalid = (message: string) => insightsError('insights.invalid_query', message);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function compileAggregate(request: AggregateRequest, options: CompileOptions): CompiledAggregate {
  const range = resolveRange(request.range, options.now);
  const select = (request.select ?? [{ column: 'eventsCount' }]).map((item, index) => parseColumn(item, `select[${index}]`));
  const groupBy = (request.groupBy ?? []).map((item, index) => parseColumn(item, `groupBy[${index}]`));
  const where = (request.where ?? []).map((item, index) => parseFilter(item, `where[${index}]`));
  const order = request.order === undefined ? undefined : parseOrder(request.order);
  const limit = request.limit ?? 1000;

  // Answer columns: the groups, then the selected columns; a dimension that is selected is grouped by.
  const outputRefs = dedupe([...groupBy, ...select]);
  if (outputRefs.length === 0) throw invalid('select: at least one column is required');
  const groupRefs = outputRefs.filter((ref) => ref.spec.kind === 'dimension');
  if (order && !outputRefs.some((ref) => ref.key === order.ref.key) && order.ref.spec.kind === 'dimension') {
    throw invalid(`order.by: column "${order.ref.column}" must be selected or grouped by`);
  }

  const touched = dedupe([...outputRefs, ...where.map((filter) => filter.ref), ...(order ? [order.ref] : [])]);
  const level = options.useRollups === false ? undefined : rollupLevelFor(touched, where, order?.ref);

  const params = new Params();
  const site = params.add(options.siteId);
  const from = params.add(range.from, '::timestamptz');
  const to = params.add(range.to, '::timestamptz');

  // Source columns: one (or two, for page) per dimension that is read from the row, named d0, d1...
  const sourceDims = dedupe(touched.filter((ref) => ref.spec.kind === 'dimension' && !(ref.spec as DimensionColumn).fromTime));
  const claimParams = new Map<string, string>();
  const sourceNames = new Map<string, string[]>();
  const rawExprs: string[] = [];
  const rollupExprs: string[] = [];
  sourceDims.forEach((ref, index) => {
    const spec = ref.spec as DimensionColumn;
    if (ref.column === 'page') {
      const names = [`d${index}s`, `d${index}p`];
      sourceNames.set(ref.key, names);
      PAGE_PARTS.raw.forEach((expression, part) => rawExprs.push(`${expression} AS ${names[part]}`));
      PAGE_PARTS.pages.forEach((expression, part) => rollupExprs.push(`${expression} AS ${names[part]}`));
      return;
    }
    const name = `d${index}`;
    sourceNames.set(ref.key, [name]);
    let raw = spec.raw;
    if (ref.column === 'visitorClaim') {
      const claim = ref.claim as string;
      if (!claimParams.has(claim)) claimParams.set(claim, params.add(claim, '::text'));
      raw = raw.replace('$claim', claimParams.get(claim) as string);
    }
    rawExprs.push(`${raw} AS ${name}`);
    if (level) rollupExprs.push(`${spec.rollup?.[level] as string} AS ${name}`);
  });
  // Distinct counts: exact over raw ids, or HyperLogLog sketches when read from the totals rollups.
  const sketched = level === 'totals' && touched.some((ref) => ref.spec.kind === 'metric' && !ref.spec.rollupSafe);
  const metricsNeedIds = touched.some((ref) => ref.spec.kind === 'metric' && !ref.spec.rollupSafe);
  if (sketched) {
    rawExprs.push('NULL::bytea AS vs', 'NULL::bytea AS ss', 'insights_hll_reg(e.visitor_id) AS vr', 'insights_hll_reg(e.session_id) AS sr');
    rollupExprs.push('r.visitors AS vs', 'r.sessions AS ss', 'NULL::int AS vr', 'NULL::int AS sr');
  } else if (metricsNeedIds) rawExprs.push('e.visitor_id', 'e.session_id');

  // Raw branches. `unfolded`: the rows at or above the watermark, found by the ingest-id BRIN only. The site
  // is compared as `site_id || ''` there so that the planner cannot pick the (site, time) btree instead, which
  // would read every folded row of the range (its estimate of the watermark's selectivity is unreliable
  // between ANALYZEs). `folded`: the rows below it, by the (site, time) btree.
  const watermark = () => params.add(options.watermark ?? '0', '::bigint');
  const rawBranch = (n: string, lower: string, upper: string, rows: 'all' | 'unfolded' | 'folded' = 'all') =>
    `SELECT ${['e.occurred_at AS t', `${n} AS n`, ...rawExprs].join(', ')} FROM insights_events e ` +
    `WHERE ${rows === 'unfolded' ? `e.site_id || '' = ${site} AND e.ingest_xid >= ${watermark()}` : `e.site_id = ${site}`} ` +
    `${rows === 'folded' ? `AND e.ingest_xid < ${watermark()} ` : ''}AND e.occurred_at >= ${lower} AND e.occurred_at < ${upper}`;
  const rollupBranch = (width: 'minute' | 'hour', lower: Date, upper: Date) => {
    const table = (width === 'hour' ? ROLLUP_TABLES : MINUTE_ROLLUP_TABLES)[level as RollupLevel];
    return (
      `SELECT ${[`r.${width} AS t`, 'r.events AS n', ...rollupExprs].join(', ')} FROM ${table} r ` +
      `WHERE r.site_id = ${site} AND r.${width} >= ${params.add(lower, '::timestamptz')} AND r.${width} < ${params.add(upper, '::timestamptz')}`
    );
  };
  let source: string;
  const firstMinute = ceilTo(range.from, MINUTE);
  const lastMinute = floorTo(range.to, MINUTE);
  if (level) {
    // Folded events: whole hours from the hourly rollup, whole minutes at both ends of them from the minute
    // rollup; a minute the range cuts (at most one at each end) from its minute rollup when all its folded
    // events lie inside the range (the totals' `first_at`/`last_at`), else its folded events raw; the events
    // not folded yet (their transaction at or above the watermark) raw, anywhere in the range.
    const branches: string[] = [];
    if (firstMinute < lastMinute) {
      const firstHour = ceilTo(range.from, HOUR);
      const lastHour = floorTo(range.to, HOUR);
      if (firstHour < lastHour) {
        branches.push(rollupBranch('hour', firstHour, lastHour));
        if (firstMinute < firstHour) branches.push(rollupBranch('minute', firstMinute, firstHour));
        if (lastHour < lastMinute) branches.push(rollupBranch('minute', lastHour, lastMinute));
      } else {
        branches.push(rollupBranch('minute', firstMinute, lastMinute));
      }
    }
    for (const cut of cutMinutes(range)) {
      const lower = params.add(cut.lower, '::timestamptz');
      const upper = params.add(cut.upper, '::timestamptz');
      // One row per (type, display context) of the minute; a span unknown (NULL) counts as outside.
      const inside =
        `NOT EXISTS (SELECT 1 FROM insights_minute_totals w WHERE w.site_id = ${site} AND w.minute = ${params.add(cut.minute, '::timestamptz')} ` +
        `AND NOT coalesce(w.first_at >= ${lower} AND w.last_at < ${upper}, false))`;
      branches.push(`${rollupBranch('minute', cut.minute, new Date(cut.minute.getTime() + MINUTE))} AND ${inside}`);
      branches.push(`${rawBranch('1::bigint', lower, upper, 'folded')} AND NOT ${inside}`);
    }
    branches.push(rawBranch('1::bigint', from, to, 'unfolded'));
    source = branches.join(' UNION ALL ');
  } else {
    source = rawBranch('1', from, to);
  }

  // Outer query: the answer's expressions over the source rows `s`.
  const expressionsOf = (ref: ColumnRef): string[] => {
    const spec = ref.spec;
    if (spec.kind === 'metric') {
      if (sketched && !spec.rollupSafe) {
        const [bytes, registers] = ref.column === 'visitorsCount' ? ['s.vs', 's.vr'] : ['s.ss', 's.sr'];
        return [`array_agg(${bytes}) FILTER (WHERE ${bytes} IS NOT NULL)`, `array_agg(DISTINCT ${registers}) FILTER (WHERE ${registers} IS NOT NULL)`];
      }
      return [`(${spec.aggregate})::bigint`];
    }
    // On UTC wall time (timestamp without zone): the three-argument date_trunc looks the zone up per row.
    if (ref.column === 'datetime') return [`(date_trunc('${ref.interval ?? 'day'}', s.t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`];
    if (spec.fromTime) return [spec.raw];
    return (sourceNames.get(ref.key) as string[]).map((name) => `s.${name}`);
  };

  const outputs: OutputColumn[] = [];
  const selectList: string[] = [];
  const groupPositions: number[] = [];
  const aliasOf = new Map<string, string[]>();
  for (const ref of outputRefs) {
    const aliases = expressionsOf(ref).map((expression) => {
      const alias = `c${selectList.length}`;
      selectList.push(`${expression} AS ${alias}`);
      if (ref.spec.kind === 'dimension') groupPositions.push(selectList.length);
      return alias;
    });
    aliasOf.set(ref.key, aliases);
    outputs.push({
      column: ref.column,
      claim: ref.claim,
      aliases,
      decode: sketched && ref.spec.kind === 'metric' && !ref.spec.rollupSafe ? decodeSketch : decoderFor(ref),
    });
  }

  const conditions: string[] = [];
  const having: string[] = [];
  for (const filter of where) {
    const condition = filterSql(filter, expressionsOf(filter.ref), params);
    (filter.ref.spec.kind === 'metric' ? having : conditions).push(condition);
  }

  const orderList: string[] = [];
  if (order) {
    const aliases = aliasOf.get(order.ref.key) ?? expressionsOf(order.ref);
    for (const alias of aliases) orderList.push(`${alias} ${order.direction === 'desc' ? 'DESC' : 'ASC'} NULLS LAST`);
  }
  for (const ref of groupRefs) for (const alias of aliasOf.get(ref.key) as string[]) orderList.push(`${alias} ASC NULLS LAST`);

  const sql = [
    `SELECT ${selectList.join(', ')} FROM (${source}) s`,
    conditions.length ? `WHERE ${conditions.join(' AND ')}` : '',
    groupPositions.length ? `GROUP BY ${groupPositions.join(', ')}` : '',
    having.length ? `HAVING ${having.join(' AND ')}` : '',
    orderList.length ? `ORDER BY ${orderList.join(', ')}` : '',
    `LIMIT ${params.add(limit, '::int')}`,
  ]
    .filter(Boolean)
    .join(' ');
  return { sql, params: params.values, outputs, source: level ?? 'raw', range };
}

/** The narrowest rollup holding every column the query touches, when its only metric adds up; else none. */
function rollupLevelFor(touched: ColumnRef[], where: Filter[], order: ColumnRef | undefined): RollupLevel | undefined {
  if (where.some((filter) => filter.ref.column === 'datetime')) return undefined; // sub-minute bounds need raw times
  // A distinct count is merged from sketches after the query: it cannot filter or order rows in SQL.
  const sketchable = (ref: ColumnRef) => ref.key !== order?.key && !where.some((filter) => filter.ref.key === ref.key);
  for (const level of ['totals', 'pages'] as const) {
    const covered = touched.every((ref) => {
      const spec = ref.spec;
      if (spec.kind === 'metric') return spec.rollupSafe || (level === 'totals' && sketchable(ref));
      return spec.fromTime || spec.rollup?.[level] !== undefined;
    });
    if (covered) return level;
  }
  return undefined;
}

function filterSql(filter: Filter, expressions: string[], params: Params): string {
  const { ref, operator, values } = filter;
  const kind = ref.spec.valueKind;
  if (operator !== 'in' && operator !== 'notIn') {
    const comparison = { greaterThan: '>', greaterThanOrEqual: '>=', lessThan: '<', lessThanOrEqual: '<=' }[operator];
    const cast = kind === 'timestamp' ? '::timestamptz' : kind === 'int' ? '::int' : '::numeric';
    return `${expressions[0]} ${comparison} ${params.add(values[0], cast)}`;
  }
  let matches: string;
  const hasNull = values.includes(null);
  const present = values.filter((value) => value !== null);
  if (kind === 'page') {
    const pages = present as { space: string; page: string | null }[];
    const spaces = params.add(
      pages.map((value) => value.space),
      '::text[]',
    );
    const pageIds = params.add(
      pages.map((value) => value.page),
      '::text[]',
    );
    const [space, page] = expressions;
    matches =
      `EXISTS (SELECT 1 FROM unnest(${spaces}, ${pageIds}) AS v(space, page) ` +
      `WHERE v.space IS NOT DISTINCT FROM ${space} AND v.page IS NOT DISTINCT FROM ${page})` +
      (hasNull ? ` OR ${page} IS NULL` : '');
  } else {
    const cast = { text: '::text[]', int: '::int[]', timestamp: '::timestamptz[]', number: '::numeric[]', boolean: '::boolean[]' }[kind];
    matches = `${expressions[0]} = ANY(${params.add(present, cast)})` + (hasNull ? ` OR ${expressions[0]} IS NULL` : '');
  }
  return operator === 'in' ? `coalesce(${matches}, false)` : `NOT coalesce(${matches}, false)`;
}

function parseColumn(item: unknown, path: string): ColumnRef {
  if (!isObject(item)) throw invalid(`${path}: must be an object with a column`);
  for (const key of Object.keys(item)) {
    if (!['column', 'interval', 'claim'].includes(key)) throw invalid(`${path}.${key}: unknown property`);
  }
  return columnRef(item, path);
}

function columnRef(item: Record<string, unknown>, path: string): ColumnRef {
  const column = item.column;
  if (typeof column !== 'string') throw invalid(`${path}.column: must be a string`);
  const spec = Object.prototype.hasOwnProperty.call(COLUMNS, column) ? COLUMNS[column] : undefined;
  if (!spec) {
    if (UNSUPPORTED_COLUMNS.includes(column)) throw invalid(`${path}.column: column "${column}" is not recorded by this server`);
    throw invalid(`${path}.column: unknown column "${column}"`);
  }
  let interval: Interval | undefined;
  if (item.interval !== undefined) {
    if (column !== 'datetime') throw invalid(`${path}.interval: only the datetime column takes an interval`);
    if (!INTERVALS.includes(item.interval as Interval)) throw invalid(`${path}.interval: unknown interval ${JSON.stringify(item.interval)}`);
    interval = item.interval as Interval;
  }
  let claim: string | undefined;
  if (column === 'visitorClaim') {
    if (typeof item.claim !== 'string' || item.claim.length === 0 || item.claim.length > 256) {
      throw invalid(`${path}.claim: must be a claim name of 1 to 256 characters`);
    }
    claim = item.claim;
  } else if (item.claim !== undefined) {
    throw invalid(`${path}.claim: only the visitorClaim column takes a claim`);
  }
  const key = column === 'datetime' ? `datetime:${interval ?? 'day'}` : claim !== undefined ? `visitorClaim:${claim}` : column;
  return { key, column, spec, interval: column === 'datetime' ? (interval ?? 'day') : undefined, claim };
}

function parseFilter(item: unknown, path: string): Filter {
  if (!isObject(item)) throw invalid(`${path}: must be an object with a column and values`);
  for (const key of Object.keys(item)) {
    if (!['column', 'values', 'operator', 'claim'].includes(key)) throw invalid(`${path}.${key}: unknown property`);
  }
  const ref = columnRef(item, path);
  const operator = item.operator ?? 'in';
  if (typeof operator !== 'string' || !OPERATORS.includes(operator as Operator)) {
    throw invalid(`${path}.operator: unknown operator ${JSON.stringify(item.operator)}`);
  }
  if (!Array.isArray(item.values)) throw invalid(`${path}.values: must be an array`);
  const values = item.values.map((value, index) => checkValue(ref, value, `${path}.values[${index}]`));
  if (operator !== 'in' && operator !== 'notIn') {
    if (!['int', 'timestamp', 'number'].includes(ref.spec.valueKind)) {
      throw invalid(`${path}.operator: ${operator} does not apply to column "${ref.column}"`);
    }
    if (values.length !== 1 || values[0] === null) throw invalid(`${path}.values: ${operator} takes exactly one value`);
  }
  return { ref, operator: operator as Operator, values, path };
}

function checkValue(ref: ColumnRef, value: unknown, path: string): unknown {
  const spec = ref.spec;
  if (value === null) {
    if (spec.kind === 'dimension' && spec.nullable) return null;
    throw invalid(`${path}: must not be null`);
  }
  switch (spec.valueKind) {
    case 'text': {
      if (typeof value !== 'string') throw invalid(`${path}: must be a string`);
      if (value.length > 2048) throw invalid(`${path}: must be at most 2048 characters`);
      const allowed = spec.kind === 'dimension' ? spec.allowed : undefined;
      if (allowed && !allowed.includes(value)) throw invalid(`${path}: unknown value ${JSON.stringify(value)} for column "${ref.column}"`);
      return value;
    }
    case 'int': {
      const [min, max] = ref.column === 'dayOfWeek' ? [1, 7] : [0, 23];
      if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) throw invalid(`${path}: must be an integer from ${min} to ${max}`);
      return value;
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`${path}: must be a number`);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw invalid(`${path}: must be a boolean`);
      return value;
    case 'timestamp':
      return parseTimestamp(value, path);
    case 'page': {
      if (!isObject(value) || typeof value.space !== 'string' || !(value.page === null || typeof value.page === 'string')) {
        throw invalid(`${path}: must be null or { space, page }`);
      }
      return { space: value.space, page: value.page };
    }
  }
}

function parseOrder(order: unknown): { ref: ColumnRef; direction: 'asc' | 'desc' } {
  if (!isObject(order)) throw invalid('order: must be an object with by and direction');
  for (const key of Object.keys(order)) if (!['by', 'direction'].includes(key)) throw invalid(`order.${key}: unknown property`);
  if (order.direction !== 'asc' && order.direction !== 'desc') throw invalid('order.direction: must be one of asc, desc');
  return { ref: parseColumn(order.by, 'order.by'), direction: order.direction };
}

/** A preset is the period that ends now; a custom range is `[from, to)`. */
export function resolveRange(range: unknown, now: Date): { from: Date; to: Date } {
  if (typeof range === 'string') {
    const from = new Date(now);
    switch (range) {
      case 'lastYear':
        from.setUTCFullYear(from.getUTCFullYear() - 1);
        break;
      case 'last3Months':
        from.setUTCMonth(from.getUTCMonth() - 3);
        break;
      case 'last30Days':
        from.setTime(now.getTime() - 30 * 86_400_000);
        break;
      case 'last7Days':
        from.setTime(now.getTime() - 7 * 86_400_000);
        break;
      case 'last24Hours':
        from.setTime(now.getTime() - 86_400_000);
        break;
      default:
        throw invalid(`range: unknown range ${JSON.stringify(range)} (one of ${RANGE_PRESETS.join(', ')}, or { from, to })`);
    }
    return { from, to: new Date(now) };
  }
  if (!isObject(range)) throw invalid('range: must be a preset name or { from, to }');
  for (const key of Object.keys(range)) if (!['from', 'to'].includes(key)) throw invalid(`range.${key}: unknown property`);
  const from = parseTimestamp(range.from, 'range.from');
  const to = parseTimestamp(range.to, 'range.to');
  if (from >= to) throw invalid('range: from must be before to');
  return { from, to };
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

export function parseTimestamp(value: unknown, path: string): Date {
  if (typeof value !== 'string' || !ISO_DATE_TIME.test(value)) throw invalid(`${path}: must be an ISO 8601 date-time`);
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw invalid(`${path}: must be an ISO 8601 date-time`);
  return date;
}

function decoderFor(ref: ColumnRef): (values: unknown[]) => unknown {
  const spec = ref.spec;
  if (spec.kind === 'metric') return ([value]) => Number(value ?? 0);
  if (ref.column === 'datetime') return ([value]) => (value as Date).toISOString();
  if (ref.column === 'page') return ([space, page]) => (space === null && page === null ? null : space === null ? null : { space, page });
  return ([value]) => value;
}

function dedupe(refs: ColumnRef[]): ColumnRef[] {
  const seen = new Set<string>();
  return refs.filter((ref) => (seen.has(ref.key) ? false : (seen.add(ref.key), true)));
}

const HOUR = 3_600_000;
const MINUTE = 60_000;
const floorTo = (date: Date, unit: number) => new Date(Math.floor(date.getTime() / unit) * unit);
const ceilTo = (date: Date, unit: number) => new Date(Math.ceil(date.getTime() / unit) * unit);

/** The minutes the range covers only in part (none, one or two), with the part `[lower, upper)` it covers. */
function cutMinutes(range: { from: Date; to: Date }): { minute: Date; lower: Date; upper: Date }[] {
  const first = floorTo(range.from, MINUTE);
  const last = floorTo(range.to, MINUTE);
  if (first.getTime() === last.getTime()) return [{ minute: first, lower: range.from, upper: range.to }];
  const cuts: { minute: Date; lower: Date; upper: Date }[] = [];
  if (first < range.from) cuts.push({ minute: first, lower: range.from, upper: new Date(first.getTime() + MINUTE) });
  if (last < range.to) cuts.push({ minute: last, lower: last, upper: range.to });
  return cuts;
}

/** A distinct count from sketches: the stored sketches merged with the raw rows' register values, estimated. */
function decodeSketch([sketches, registers]: unknown[]): number {
  const sketch = new HyperLogLog();
  for (const bytes of (sketches as Buffer[] | null) ?? []) sketch.mergeBytes(bytes);
  sketch.addRegisters((registers as number[] | null) ?? []);
  return sketch.estimate();
}

export { DISPLAY_CONTEXTS, EVENT_TYPES };
