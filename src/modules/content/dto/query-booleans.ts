import { Transform } from 'class-transformer';

/** Query strings carry text: `true`/`false` (and 1/0) become booleans; anything else stays as is and fails validation. */
export const QueryBoolean = () =>
  Transform(({ value }: { value: unknown }) => {
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    return value;
  });
