/**
 * Trimming a run of one character from the ends of a string, in one pass. `s.replace(/-+$/, '')` looks
 * linear but is not: the engine tries the run from every dash, so a text of dashes followed by a letter
 * costs quadratic time (regexp/no-super-linear-move). These scan from the end instead.
 */
export function trimEndChar(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return end === text.length ? text : text.slice(0, end);
}

export function trimStartChar(text: string, char: string): string {
  let start = 0;
  while (start < text.length && text[start] === char) start++;
  return start === 0 ? text : text.slice(start);
}

export function trimChar(text: string, char: string): string {
  return trimStartChar(trimEndChar(text, char), char);
}
