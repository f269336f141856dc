// numpy's default_rng as far as seeded simulators use it: SeedSequence → PCG64, raw 64-bit draws and
// normal() by numpy's 256-level ziggurat, so a NumPy-seeded trajectory is reproduced to the last bit.
import zigguratJson from './data/ziggurat_tables.json';

const MASK32 = 0xffffffffn;
const MASK64 = (1n << 64n) - 1n;
const MASK128 = (1n << 128n) - 1n;
const PCG_MULTIPLIER = 0x2360ed051fc65da44385df649fccf645n;

// SeedSequence's hash constants (numpy.random.bit_generator).
const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;
const XSHIFT = 16;
const POOL_SIZE = 4;

const mul32 = (a: number, b: number) => Math.imul(a, b) >>> 0;

/** An integer seed as SeedSequence reads it: little-endian 32-bit words, at least one. */
function seedWords(seed: bigint): number[] {
  if (seed < 0n) throw new RangeError('a SeedSequence seed must be non-negative');
  const words: number[] = [];
  do {
    words.push(Number(seed & MASK32));
    seed >>= 32n;
  } while (seed > 0n);
  return words;
}

function seedPool(entropy: number[]): number[] {
  let hashConst = INIT_A;
  const hashmix = (value: number) => {
    value = (value ^ hashConst) >>> 0;
    hashConst = mul32(hashConst, MULT_A);
    value = mul32(value, hashConst);
    return (value ^ (value >>> XSHIFT)) >>> 0;
  };
  const mix = (x: number, y: number) => {
    const r = (mul32(MIX_MULT_L, x) - mul32(MIX_MULT_R, y)) >>> 0;
    return (r ^ (r >>> XSHIFT)) >>> 0;
  };
  const pool = Array.from({ length: POOL_SIZE }, (_, i) => hashmix(entropy[i] ?? 0));
  for (let src = 0; src < POOL_SIZE; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) if (src !== dst) pool[dst] = mix(pool[dst]!, hashmix(pool[src]!));
  }
  for (let src = POOL_SIZE; src < entropy.length; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) pool[dst] = mix(pool[dst]!, hashmix(entropy[src]!));
  }
  return pool;
}

/** SeedSequence(seed).generate_state(n, uint64). */
function generateState64(seed: bigint, n: number): bigint[] {
  const pool = seedPool(seedWords(seed));
  let hashConst = INIT_B;
  const words: number[] = [];
  for (let i = 0; i < 2 * n; i++) {
    let value = (pool[i % POOL_SIZE]! ^ hashConst) >>> 0;
    hashConst = mul32(hashConst, MULT_B);
    value = mul32(value, hashConst);
    words.push((value ^ (value >>> XSHIFT)) >>> 0);
  }
  return Array.from({ length: n }, (_, i) => BigInt(words[2 * i]!) | (BigInt(words[2 * i + 1]!) << 32n));
}

// numpy's ziggurat for the standard normal: 256 boxes under exp(-x²/2), the tail beyond R. The tables
// need more than double precision to come out as numpy's do; data/ziggurat_tables.py computes them.
const ZIGGURAT_R = 3.6541528853610088;
const ZIGGURAT_INV_R = 0.27366123732975828;
const ZIGGURAT: { ki: number[]; wi: number[]; fi: number[] } = zigguratJson;

/** `numpy.random.default_rng(seed)` (a PCG64 generator). */
export class NumpyGenerator {
  private state: bigint;
  private readonly inc: bigint;

  constructor(seed: number | bigint) {
    const [s0, s1, i0, i1] = generateState64(BigInt(seed), 4) as [bigint, bigint, bigint, bigint];
    const initState = (s0 << 64n) | s1;
    const initSeq = (i0 << 64n) | i1;
    this.inc = ((initSeq << 1n) | 1n) & MASK128;
    this.state = 0n;
    this.step();
    this.state = (this.state + initState) & MASK128;
    this.step();
  }

  private step(): void {
    this.state = (this.state * PCG_MULTIPLIER + this.inc) & MASK128;
  }

  /** `bit_generator.random_raw()`: the next 64-bit output (XSL-RR of the advanced state). */
  randomRaw(): bigint {
    this.step();
    const rot = this.state >> 122n;
    const xored = ((this.state >> 64n) ^ this.state) & MASK64;
    return ((xored >> rot) | (xored << ((64n - rot) & 63n))) & MASK64;
  }

  private nextDouble(): number {
    return Number(this.randomRaw() >> 11n) / 9007199254740992;
  }

  standardNormal(): number {
    for (;;) {
      const r = this.randomRaw();
      const idx = Number(r & 0xffn);
      const rest = r >> 8n;
      const negative = (rest & 1n) === 1n;
      const rabs = Number((rest >> 1n) & 0xfffffffffffffn);
      let x = rabs * ZIGGURAT.wi[idx]!;
      if (negative) x = -x;
      if (rabs < ZIGGURAT.ki[idx]!) return x;
      if (idx === 0) {
        for (;;) {
          const xx = -ZIGGURAT_INV_R * Math.log1p(-this.nextDouble());
          const yy = -Math.log1p(-this.nextDouble());
          if (yy + yy > xx * xx) return Math.floor(rabs / 256) % 2 === 1 ? -(ZIGGURAT_R + xx) : ZIGGURAT_R + xx;
        }
      }
      if ((ZIGGURAT.fi[idx - 1]! - ZIGGURAT.fi[idx]!) * this.nextDouble() + ZIGGURAT.fi[idx]! < Math.exp(-0.5 * x * x)) return x;
    }
  }

  /** `normal(loc, scale)`. */
  normal(loc: number, scale: number): number {
    return loc + scale * this.standardNormal();
  }
}
