import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { actionsOf, AUDIT_ACTIONS, AUDITED_ROUTES, OPERATOR_ACTIONS, SYSTEM_ACTIONS } from '../src/common/audit/audit-catalogue';

/** The catalogue section of docs/modules/audit.md, rendered from the code (a unit test checks the page holds it). */
export function renderAuditCatalogue(): string {
  const byAction = new Map<string, string[]>();
  for (const [operationId, route] of Object.entries(AUDITED_ROUTES)) {
    if ('action' in route) for (const action of actionsOf(route)) byAction.set(action, [...(byAction.get(action) ?? []), operationId]);
  }
  const recordedBy = (id: string) =>
    id in SYSTEM_ACTIONS
      ? 'the system (not a route)'
      : id in OPERATOR_ACTIONS
        ? 'the admin CLI (not a route)'
        : (byAction.get(id) ?? []).map((op) => `\`${op}\``).join(', ');
  const actions = AUDIT_ACTIONS.map(({ id, label }) => `| \`${id}\` | ${label} | ${recordedBy(id)} |`);
  const quiet = Object.entries(AUDITED_ROUTES).flatMap(([operationId, route]) =>
    'notAudited' in route ? [`| \`${operationId}\` | ${route.notAudited} |`] : [],
  );
  return [
    '| action | label | recorded by (operationId) |',
    '| --- | --- | --- |',
    ...actions,
    '',
    'Non-GET routes that record nothing, and why:',
    '',
    '| operationId | why |',
    '| --- | --- |',
    ...quiet,
  ].join('\n');
}

export const CATALOGUE_START = '<!-- audit-catalogue:start (npm run -s audit:catalogue) -->';
export const CATALOGUE_END = '<!-- audit-catalogue:end -->';

/** Rewrites the catalogue section of the page. */
if (require.main === module) {
  const path = join(__dirname, '..', 'docs', 'modules', 'audit.md');
  const page = readFileSync(path, 'utf8');
  const start = page.indexOf(CATALOGUE_START);
  const end = page.indexOf(CATALOGUE_END);
  if (start < 0 || end < start) throw new Error(`${path} has no catalogue markers`);
  writeFileSync(path, `${page.slice(0, start + CATALOGUE_START.length)}\n\n${renderAuditCatalogue()}\n\n${page.slice(end)}`);
}
