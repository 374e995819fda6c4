import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  DataSource,
  EntitySubscriberInterface,
  InsertEvent,
  LoadEvent,
  RemoveEvent,
  TransactionCommitEvent,
  TransactionRollbackEvent,
  UpdateEvent,
} from 'typeorm';
import { actionOf } from './audit-catalogue';
import { auditScopeOf, unbindAuditScope, type AuditScope } from './audit.context';
import { summarizeChanges } from './audit-changes';
import { AuditRecorder } from './audit-recorder';

type Row = Record<string, unknown>;

interface Loaded {
  spaceAccess?: { space?: Row };
  collectionAccess?: { collection?: Row };
  membership?: { organizationId?: string };
  scriptPrincipal?: { organizationId?: string };
  sitePrincipal?: { organizationId?: string };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function labelOf(row: Row | undefined): string | null {
  if (!row) return null;
  for (const field of ['title', 'name', 'label', 'slug', 'displayName', 'email']) {
    const value = str(row[field]);
    if (value) return value.slice(0, 256);
  }
  return null;
}

const MAX_LOADED = 64;

/**
 * The row a route changed, as it was before the write: among the rows the request loaded, the
 * route's target (its id, or a foreign key, slug or name equal to the target id: a member's
 * membership row names the user) holding the most of the fields the body sets.
 */
export function beforeRow(loaded: AuditScope['loaded'], targetId: string | undefined, body: Row | undefined): Row | undefined {
  if (!loaded || !targetId || !body || typeof body !== 'object') return undefined;
  const fields = Object.keys(body);
  let best: Row | undefined;
  let bestScore = 0;
  for (const { row } of loaded) {
    const names = row.id === targetId || row.slug === targetId || row.name === targetId;
    const refers = names || Object.entries(row).some(([key, value]) => key.endsWith('Id') && value === targetId);
    if (!refers) continue;
    const score = fields.filter((field) => field in row).length * 2 + (names ? 1 : 0);
    if (score > bestScore && score > 1) {
      best = row;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The commit hook of every transaction a writing request opens: the first commit of the request
 * records the route's declared event (audit-catalogue.ts) in that same transaction, unless the code
 * already recorded one explicitly. It also watches the rows the request inserts (the target of a
 * create; the organization of routes outside `/v1/orgs/{id}` and the spaces).
 */
@Injectable()
export class AuditCommitSubscriber implements EntitySubscriberInterface, OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly recorder: AuditRecorder,
  ) {}

  onModuleInit(): void {
    this.dataSource.subscribers.push(this);
  }

  /** Keeps a copy of each row the request loads before recording (the `before` of its event's changes). */
  afterLoad(entity: Row, event?: LoadEvent<Row>): void {
    if (!event || !entity) return;
    const scope = auditScopeOf(event.queryRunner);
    if (!scope || scope.recordedId || scope.wrote) return;
    const loaded = (scope.loaded ??= []);
    if (loaded.length >= MAX_LOADED) return;
    const table = event.metadata.tableName;
    const id = entity.id;
    if (id !== undefined && loaded.some((seen) => seen.table === table && seen.row.id === id)) return;
    loaded.push({ table, row: { ...entity } });
  }

  afterInsert(event: InsertEvent<Row>): void {
    const scope = auditScopeOf(event.queryRunner);
    if (scope) scope.wrote = true;
    if (!scope || scope.recordedId || !event.entity) return;
    if (!scope.inserted && scope.route.id === `+${event.metadata.tableName}`) scope.inserted = event.entity;
    scope.insertedOrganizationId ??= str(event.entity.organizationId);
  }

  afterUpdate(event: UpdateEvent<Row>): void {
    this.noteOrganization(event, event.entity as Row | undefined);
  }

  afterRemove(event: RemoveEvent<Row>): void {
    this.noteOrganization(event, (event.databaseEntity ?? event.entity) as Row | undefined);
  }

  private noteOrganization(event: UpdateEvent<Row> | RemoveEvent<Row>, row: Row | undefined): void {
    const scope = auditScopeOf(event.queryRunner);
    if (scope) scope.wrote = true;
    if (scope && !scope.recordedId && row) scope.insertedOrganizationId ??= str(row.organizationId);
  }

  async beforeTransactionCommit(event: TransactionCommitEvent): Promise<void> {
    const scope = auditScopeOf(event.queryRunner);
    if (!scope || scope.recordedId) return;
    await this.recordRoute(scope, event.manager);
  }

  /** A transaction over (not a savepoint's): its runner no longer writes for the request's scope. */
  afterTransactionCommit(event: TransactionCommitEvent): void {
    if (!event.queryRunner.isTransactionActive) unbindAuditScope(event.queryRunner);
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    if (!event.queryRunner.isTransactionActive) unbindAuditScope(event.queryRunner);
  }

  /** Records the route's event with `em`; nothing when the organization cannot be known (the coverage test names such routes). */
  async recordRoute(scope: AuditScope, em: TransactionCommitEvent['manager']): Promise<void> {
    const request = scope.request as typeof scope.request & Loaded;
    const { route } = scope;
    const space = request.spaceAccess?.space;
    const collection = request.collectionAccess?.collection;
    const inserted = scope.inserted;
    const body = request.body as Row | undefined;
    const organizationId =
      (route.target === 'organization' ? str(inserted?.id) : undefined) ??
      str(request.params?.organizationId) ??
      str(space?.organizationId) ??
      str(collection?.organizationId) ??
      str(request.scriptPrincipal?.organizationId) ??
      str(request.sitePrincipal?.organizationId) ??
      str(inserted?.organizationId) ??
      scope.insertedOrganizationId ??
      str(body?.organizationId) ??
      str(body?.organization);
    if (!organizationId) return;

    let targetId: string | undefined;
    let label: string | null = null;
    if (route.id.startsWith('+')) {
      targetId = str(inserted?.id);
      label = labelOf(inserted);
    } else {
      targetId = str(request.params?.[route.id]);
    }
    const before = route.target === 'space' ? space : route.target === 'collection' ? collection : beforeRow(scope.loaded, targetId, body);
    label ??= labelOf(before);
    if (!targetId) scope.targetPending = true;
    await this.recorder.record(em, {
      organizationId,
      action: actionOf(route, body, scope.loaded, targetId),
      target: { type: route.target, id: targetId ?? '', label },
      changes: summarizeChanges(body, before),
      details: scope.details,
    });
  }
}
