/** Helpers comparing documents "up to keys" in the document model's tests. */
type Json = Record<string, unknown>;

export function withoutKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutKeys);
  if (!value || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [name, child] of Object.entries(value)) if (name !== 'key') out[name] = withoutKeys(child);
  return out;
}
