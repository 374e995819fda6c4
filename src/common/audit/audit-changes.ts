import type { AuditChange } from './audit.context';

/**
 * Fields whose values never enter the log (only their names): secrets, tokens, keys, passwords,
 * certificates, and bodies (content, documents, Markdown, comments' text), which may hold anything.
 */
const SECRET_OR_BODY =
  /token|secret|password|passphrase|key|cert|signature|credential|private|auth|cookie|body|content|document|markdown|source|file|blob|data|schema|configuration/i;

/** Values longer than this are named, not copied: the payload stays small. */
const MAX_VALUE_LENGTH = 200;

function keepable(field: string, value: unknown): boolean {
  if (SECRET_OR_BODY.test(field)) return false;
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return true;
  return typeof value === 'string' && value.length <= MAX_VALUE_LENGTH;
}

/**
 * What a request changed, from the body it sent (validated: the DTO's fields and nothing else) and
 * the row as it was before (the route's target as the request loaded it before writing: audit.subscriber.ts):
 * every field name, and before/after only for short scalar values of fields that are not secret or a body.
 */
export function summarizeChanges(body: unknown, before?: Record<string, unknown> | null): AuditChange[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
  const changes: AuditChange[] = [];
  for (const [field, after] of Object.entries(body as Record<string, unknown>).slice(0, 50)) {
    const change: AuditChange = { field };
    if (keepable(field, after)) change.after = after;
    if (before && field in before) {
      const previous = before[field] instanceof Date ? (before[field] as Date).toISOString() : before[field];
      // A value equal to the new one is not a change (or a row read back after the write): no `before`.
      if (keepable(field, previous) && previous !== after) change.before = previous;
    }
    changes.push(change);
  }
  return changes;
}
