import { POSITION_GAP, POSITION_TRANSFORMER, positionBetween } from '../../src/modules/space-model/position';

describe('content tree positions', () => {
  it('starts an empty order at one gap', () => {
    expect(positionBetween(null, null)).toBe(POSITION_GAP);
  });

  it('goes one gap past the last item and one gap before the first', () => {
    expect(positionBetween(4096, null)).toBe(4096 + POSITION_GAP);
    expect(positionBetween(null, 1024)).toBe(0);
    expect(positionBetween(null, 0)).toBe(-POSITION_GAP);
  });

  it('takes the midpoint between two neighbours, strictly between them', () => {
    expect(positionBetween(1024, 2048)).toBe(1536);
    expect(positionBetween(-3, -1)).toBe(-2);
    const between = positionBetween(1, 4) as number;
    expect(between).toBeGreaterThan(1);
    expect(between).toBeLessThan(4);
  });

  it('answers null when the neighbours touch, so the caller renumbers', () => {
    expect(positionBetween(7, 8)).toBeNull();
    expect(positionBetween(7, 7)).toBeNull();
  });

  it('halves the room at each insertion at the same place, so a gap takes ten insertions to run out', () => {
    let upper = POSITION_GAP * 2;
    let inserted = 0;
    for (let position = positionBetween(POSITION_GAP, upper); position !== null; position = positionBetween(POSITION_GAP, upper)) {
      upper = position;
      inserted++;
    }
    expect(inserted).toBe(10);
  });

  it('reads bigint columns (strings from pg) as numbers', () => {
    expect(POSITION_TRANSFORMER.from('123456789012')).toBe(123456789012);
    expect(POSITION_TRANSFORMER.from(null)).toBeNull();
  });
});
