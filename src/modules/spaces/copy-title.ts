import { SPACE_TITLE_MAX } from './dto/space.dto';

const COPY_MARK = ' (copy)';

/** The title of a duplicate: the source's, marked as a copy, shortened so the whole stays within the limit. */
export function copyTitle(title: string): string {
  const room = SPACE_TITLE_MAX - [...COPY_MARK].length;
  const base = [...title].slice(0, room).join('').trimEnd();
  return base ? `${base}${COPY_MARK}` : COPY_MARK.trim();
}
