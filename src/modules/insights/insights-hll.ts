/**
 * HyperLogLog sketches of distinct visitors and sessions (p = 14: 16,384 registers, standard error
 * 1.04 / √16384 ≈ 0.81 %). The register of an id is computed where the id is: in SQL by
 * `insights_hll_reg(text)` (hashtextextended, 64 bits: the first 14 bits pick the register, the
 * position of the first 1 in the other 50 is the rank) — the same layout `registerOf` gives here for
 * a 64-bit hash. A register value travels as `index * 64 + rank`.
 *
 * Stored as bytea: format 1 (sparse) is the non-zero registers as little-endian uint32 `index * 64 + rank`,
 * sorted; format 2 (dense) is the 16,384 registers, one byte each. Sparse while it is smaller.
 */
export const HLL_PRECISION = 14;
export const HLL_REGISTERS = 1 << HLL_PRECISION;
/** The relative standard error of an estimate (1.04 / √m). */
export const HLL_STANDARD_ERROR = 1.04 / Math.sqrt(HLL_REGISTERS);

const SPARSE = 1;
const DENSE = 2;
/** Past this many non-zero registers the dense form (16 KiB) is smaller than the sparse one. */
const SPARSE_LIMIT = HLL_REGISTERS / 4;

export class HyperLogLog {
  readonly registers = new Uint8Array(HLL_REGISTERS);

  /** Adds register values (`index * 64 + rank`), keeping the highest rank per register. */
  addRegisters(values: Iterable<number>): this {
    for (const value of values) {
      const index = value >>> 6;
      const rank = value & 63;
      if (index < HLL_REGISTERS && rank > this.registers[index]) this.registers[index] = rank;
    }
    return this;
  }

  /** Adds a 64-bit hash (as a bigint or two 32-bit halves in a Buffer's first 8 bytes). */
  addHash(hash: bigint): this {
    return this.addRegisters([registerOf(hash)]);
  }

  merge(other: HyperLogLog): this {
    const mine = this.registers;
    const theirs = other.registers;
    for (let index = 0; index < HLL_REGISTERS; index++) if (theirs[index] > mine[index]) mine[index] = theirs[index];
    return this;
  }

  /** Merges a stored sketch (null: empty). */
  mergeBytes(bytes: Buffer | null | undefined): this {
    if (!bytes || bytes.length === 0) return this;
    if (bytes[0] === DENSE) {
      const mine = this.registers;
      for (let index = 0; index < HLL_REGISTERS; index++) if (bytes[index + 1] > mine[index]) mine[index] = bytes[index + 1];
      return this;
    }
    if (bytes[0] !== SPARSE) throw new Error(`unknown HyperLogLog format ${bytes[0]}`);
    for (let offset = 1; offset + 4 <= bytes.length; offset += 4) {
      const value = bytes.readUInt32LE(offset);
      const index = value >>> 6;
      const rank = value & 63;
      if (index < HLL_REGISTERS && rank > this.registers[index]) this.registers[index] = rank;
    }
    return this;
  }

  static fromBytes(bytes: Buffer | null | undefined): HyperLogLog {
    return new HyperLogLog().mergeBytes(bytes);
  }

  toBytes(): Buffer {
    let nonZero = 0;
    for (let index = 0; index < HLL_REGISTERS; index++) if (this.registers[index] !== 0) nonZero++;
    if (nonZero > SPARSE_LIMIT) {
      const bytes = Buffer.allocUnsafe(HLL_REGISTERS + 1);
      bytes[0] = DENSE;
      bytes.set(this.registers, 1);
      return bytes;
    }
    const bytes = Buffer.allocUnsafe(1 + nonZero * 4);
    bytes[0] = SPARSE;
    let offset = 1;
    for (let index = 0; index < HLL_REGISTERS; index++) {
      const rank = this.registers[index];
      if (rank !== 0) offset = bytes.writeUInt32LE(index * 64 + rank, offset);
    }
    return bytes;
  }

  /** The estimated number of distinct ids added (HyperLogLog, linear counting below 2.5 m). */
  estimate(): number {
    const m = HLL_REGISTERS;
    let sum = 0;
    let zeros = 0;
    for (let index = 0; index < m; index++) {
      const rank = this.registers[index];
      sum += 2 ** -rank;
      if (rank === 0) zeros++;
    }
    const alpha = 0.7213 / (1 + 1.079 / m);
    const raw = (alpha * m * m) / sum;
    if (raw <= 2.5 * m && zeros > 0) return Math.round(m * Math.log(m / zeros));
    return Math.round(raw);
  }
}

/** The register value (`index * 64 + rank`) of a 64-bit hash: the SQL function's layout. */
export function registerOf(hash: bigint): number {
  const bits = BigInt.asUintN(64, hash);
  const index = Number(bits >> 50n);
  const rest = bits & ((1n << 50n) - 1n);
  const rank = rest === 0n ? 51 : 50 - (rest.toString(2).length - 1);
  return index * 64 + rank;
}
