/**
 * An ILIKE pattern matching `text` anywhere, with LIKE's own wildcards escaped so that a search
 * for `50%` or `a_b` matches those characters literally (backslash is PostgreSQL's default escape).
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
