import { createHash } from 'node:crypto';
import { HLL_REGISTERS, HLL_STANDARD_ERROR, HyperLogLog, registerOf } from '../../src/modules/insights/insights-hll';

/** A 64-bit hash of an id (the first 8 bytes of its MD5), as a signed bigint like PostgreSQL's. */
const hash = (id: string) => createHash('md5').update(id).digest().readBigInt64BE(0);

describe('HyperLogLog sketches (p = 14)', () => {
  it('documents its standard error: 1.04 / √16384 ≈ 0.81 %', () => {
    expect(HLL_REGISTERS).toBe(16_384);
    expect(HLL_STANDARD_ERROR).toBeCloseTo(0.008125, 6);
  });

  it('estimates 100,000 distinct ids within 3 standard errors, whatever the duplicates', () => {
    const sketch = new HyperLogLog();
    for (let i = 0; i < 100_000; i++) sketch.addHash(hash(`visitor-${i}`));
    for (let i = 0; i < 50_000; i++) sketch.addHash(hash(`visitor-${i * 2}`)); // seen again: no change
    const estimate = sketch.estimate();
    expect(Math.abs(estimate - 100_000) / 100_000).toBeLessThan(3 * HLL_STANDARD_ERROR);
  });

  it('counts small sets exactly enough (linear counting) and stays within 3σ across sizes', () => {
    for (const n of [1, 10, 1000, 20_000, 300_000]) {
      const sketch = new HyperLogLog();
      for (let i = 0; i < n; i++) sketch.addHash(hash(`${n}:${i}`));
      const error = Math.abs(sketch.estimate() - n) / n;
      expect({ n, ok: n <= 10 ? sketch.estimate() === n : error < 3 * HLL_STANDARD_ERROR }).toEqual({ n, ok: true });
    }
  });

  it('merges like a union, and survives its sparse and dense stored forms', () => {
    const a = new HyperLogLog();
    const b = new HyperLogLog();
    const both = new HyperLogLog();
    for (let i = 0; i < 30_000; i++) {
      const h = hash(`id-${i}`);
      (i % 3 === 0 ? a : b).addHash(h);
      both.addHash(h);
    }
    const small = new HyperLogLog().addHash(hash('only'));
    expect(small.toBytes()[0]).toBe(1); // sparse: 1 + 4 bytes
    expect(small.toBytes()).toHaveLength(5);
    expect(a.toBytes()[0]).toBe(2); // dense: 1 + 16384 bytes
    const merged = HyperLogLog.fromBytes(a.toBytes()).mergeBytes(b.toBytes());
    expect(Buffer.from(merged.registers)).toEqual(Buffer.from(both.registers));
    expect(HyperLogLog.fromBytes(small.toBytes()).estimate()).toBe(1);
    expect(HyperLogLog.fromBytes(null).estimate()).toBe(0);
  });

  it('takes the register layout of insights_hll_reg: 14 bits of index, then the rank of the other 50', () => {
    // hashtextextended('abc', 0) and what PostgreSQL's insights_hll_reg('abc') answers.
    expect(registerOf(-6747756470228489321n)).toBe(664961);
    expect(registerOf(0n)).toBe(51);
    expect(registerOf(1n)).toBe(50);
    expect(registerOf(-1n)).toBe((HLL_REGISTERS - 1) * 64 + 1);
  });
});
