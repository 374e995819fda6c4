/**
 * The first problem of a request URL's text, or undefined: a path segment or a query parameter
 * (name or value) that decodes to a NUL character, or whose percent-encoding is not UTF-8.
 * PostgreSQL text cannot hold NUL, and a malformed escape would otherwise become U+FFFD.
 */
export function findUrlTextProblem(url: string): string | undefined {
  // Nothing percent-encoded and no NUL: every part is as it reads (most URLs; no split needed).
  if (!url.includes('%') && !url.includes('\0')) return undefined;
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? '' : url.slice(queryAt + 1);

  for (const segment of path.split('/')) {
    const text = decode(segment);
    if (text === undefined) return 'path: must be UTF-8 when percent-decoded';
    if (text.includes('\0')) return 'path: must not contain NUL characters';
  }
  if (query === '') return undefined;
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const name = decode(rawName.replace(/\+/g, ' '));
    const value = equals === -1 ? '' : decode(pair.slice(equals + 1).replace(/\+/g, ' '));
    const shown = JSON.stringify(name ?? rawName);
    if (name === undefined || value === undefined) return `query parameter ${shown}: must be UTF-8 when percent-decoded`;
    if (name.includes('\0')) return 'query: parameter names must not contain NUL characters';
    if (value.includes('\0')) return `query parameter ${shown}: must not contain NUL characters`;
  }
  return undefined;
}

/** `decodeURIComponent`, or undefined where it fails; a lone `%` not followed by hex stays as it is, as query parsers keep it. */
function decode(text: string): string | undefined {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text.replace(/%(?![0-9a-f]{2})/gi, '%25'));
  } catch {
    return undefined;
  }
}
