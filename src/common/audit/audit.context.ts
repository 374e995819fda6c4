import type { Request } from 'express';
import type { QueryRunner } from 'typeorm';
import type { AuditedRoute } from './audit-catalogue';
import { ScopedStorage } from '../async/scoped-storage';

export type AuditActorType = 'user' | 'integration' | 'installation' | 'system' | 'support';
export type AuditSource = 'ui' | 'api' | 'integration' | 'webhook' | 'workflow' | 'script' | 'support';

export interface AuditActor {
  type: AuditActorType;
  id: string;
  label?: string | null;
}

export interface AuditTarget {
  type: string;
  id: string;
  label?: string | null;
}

/** One field of a change: its name always; before/after only for fields that are not secret (audit-changes.ts). */
export interface AuditChange {
  field: string;
  before?: unknown;
  after?: unknown;
}

/**
 * The writing request an audit event is recorded for: who, from where, which route (its declared
 * action), and what the commit hook has learnt so far. Set by the audit interceptor on every
 * non-GET route, read by the commit hook of every transaction the request opens.
 */
export interface AuditScope {
  request: Request;
  route: AuditedRoute;
  operationId: string;
  actor: AuditActor;
  source: AuditSource;
  correlationId: string;
  ip: string | null;
  userAgent: string | null;
  /** The event this request recorded (explicitly or at its first commit): a request records one. */
  recordedId?: string;
  /** That event's organization: with its id (whose time is its `occurred_at`), the event's primary key. */
  recordedOrganizationId?: string;
  /** What the code noted for the route's event beyond its changes (`noteAuditDetails`): the event's `details`. */
  details?: Record<string, unknown>;
  /** Whether the recorded event still waits for its target id from the response (see the interceptor). */
  targetPending?: boolean;
  /** The first row the request inserted into the route's target table (creates name their target this way). */
  inserted?: Record<string, unknown>;
  /** Every row inserted, for the organization of routes outside `/v1/orgs/{id}` and the spaces (integrations, invites). */
  insertedOrganizationId?: string;
  /**
   * The rows the request loaded through TypeORM before its event was recorded, each as first loaded
   * (a copy: later loads of the same row, after the write, do not replace it). The event's `before`
   * values come from the one that is the route's target (audit.subscriber.ts). At most 64.
   */
  loaded?: Array<{ table: string; row: Record<string, unknown> }>;
  /** Whether the request has written through TypeORM (rows loaded after that are not `before` any more). */
  wrote?: boolean;
  /**
   * The request's own transaction, for routes the catalogue marks `transaction`: while it is open,
   * every primary query runner the request asks the data source for is this one (audit.interceptor.ts).
   */
  transaction?: QueryRunner;
}

/** The scope of a request whose route the interceptor wraps (every audited route but those the unit of work records). */
export const auditScope = new ScopedStorage<AuditScope>();

/**
 * The scopes of requests whose route the space unit of work records (`unitOfWork` in the catalogue):
 * opened by the audit guard, keyed by the request's caller (the user its token authenticated, an
 * object of its own per request), and found by the unit of work through the caller it is given.
 */
const callerScopes = new WeakMap<object, AuditScope>();
/** The scope each unit-of-work transaction writes for, keyed by its query runner (one per transaction). */
const runnerScopes = new WeakMap<QueryRunner, AuditScope>();

/** Opens `scope` for the request of `caller` (the audit guard), until `closeCallerAuditScope`. */
export function openCallerAuditScope(caller: object, scope: AuditScope): void {
  callerScopes.set(caller, scope);
}

/**
 * Closes the scope of `caller`'s request once its response is sent (the audit guard). The entry is
 * deleted, not left to the garbage collector: left, it keeps its request's objects alive past the
 * young-generation collections, into the old generation (about 9 KB more promoted per request).
 * Only on `finish`: a request whose client left first may still be writing, so its entry is left to the collector.
 */
export function closeCallerAuditScope(caller: object): void {
  callerScopes.delete(caller);
}

/** The scope the audit guard opened for the request of `caller` (none for routes the interceptor wraps). */
export function auditScopeOfCaller(caller: object): AuditScope | undefined {
  return callerScopes.get(caller);
}

/**
 * Binds the audit scope of `caller`'s request, if it has one, to a transaction the unit of work opened
 * for it: that transaction's commit hook then records the route's event, its loads and inserts are
 * the event's `before` and target, with no async context to carry it.
 */
export function bindCallerAuditScope(caller: object, runner: QueryRunner | undefined): void {
  const scope = callerScopes.get(caller);
  if (scope && runner) runnerScopes.set(runner, scope);
}

/** Binds `scope` to the transaction of `runner` (an event recorded apart from its write, by the audit guard). */
export function bindAuditScope(runner: QueryRunner | undefined, scope: AuditScope): void {
  if (runner) runnerScopes.set(runner, scope);
}

/** Unbinds the transaction of `runner` from its scope, once it has committed or rolled back (the commit hook). */
export function unbindAuditScope(runner: QueryRunner | undefined): void {
  if (runner) runnerScopes.delete(runner);
}

/** The audit scope a statement of `runner` runs for: the one bound to its transaction, else the request's async scope. */
export function auditScopeOf(runner: QueryRunner | undefined | null): AuditScope | undefined {
  return (runner ? runnerScopes.get(runner) : undefined) ?? auditScope.getStore();
}

/**
 * Tells the request's commit hook which organization the change belongs to, when neither the path, the
 * checked space or collection, nor a row the request inserted says it (a declined invite, an unpublished
 * integration). Call before the transaction commits; no-op outside a writing request.
 */
export function noteAuditOrganization(organizationId: string): void {
  const scope = auditScope.getStore();
  if (scope && !scope.recordedId) scope.insertedOrganizationId ??= organizationId;
}

/**
 * Adds action-specific details to the route's event (the event's payload, beside `changes`), when only the code
 * knows them: who a batch invitation added or invited. Small, never a secret. Call before the transaction
 * commits; no-op outside a writing request, or once its event is recorded.
 */
export function noteAuditDetails(details: Record<string, unknown>): void {
  const scope = auditScope.getStore();
  if (scope && !scope.recordedId) scope.details = { ...scope.details, ...details };
}
