/** A wildcard route parameter arrives as its segments; a single encoded parameter as one string. */
export function joinPath(value: string | string[]): string {
  return Array.isArray(value) ? value.join('/') : value;
}
