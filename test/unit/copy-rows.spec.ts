import { copyField, jsonb, textArray } from '../../src/modules/content/copy-rows';

describe('COPY text fields', () => {
  it('escapes what COPY reads as separators or escapes, and sends null as \\N', () => {
    expect(copyField('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyField('\\N')).toBe('\\\\N');
    expect(copyField(null)).toBe('\\N');
    expect(copyField(undefined)).toBe('\\N');
    expect(copyField(true)).toBe('t');
    expect(copyField(false)).toBe('f');
    expect(copyField(12)).toBe('12');
    expect(copyField(new Date('2026-11-24T19:00:00.123Z'))).toBe('2026-11-24T19:00:00.123Z');
  });

  it('writes jsonb as JSON (a string stays a JSON string) and text arrays with every element quoted', () => {
    expect(jsonb('default')).toBe('"default"');
    expect(jsonb({ a: 'x\ty' })).toBe('{"a":"x\\ty"}');
    expect(jsonb(null)).toBeNull();
    expect(textArray(['p1', 'a "b"', 'c\\d', 'NULL', '', 'x,y'])).toBe('{"p1","a \\"b\\"","c\\\\d","NULL","","x,y"}');
  });
});
