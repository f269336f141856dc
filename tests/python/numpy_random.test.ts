// numpy_random.ts against NumPy's own Generator (numpy_random.cases.py → numpy_random.cases.json): raw PCG64
// outputs after SeedSequence seeding, and standard normals to the last bit, tail and wedge draws included.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NumpyGenerator } from '../../src/python/numpy_random';
import { pySum } from '../../src/python/sum';

interface Case {
  seed: string;
  raw: string[];
  normals: number[];
  'normal_0.5_0.04': number[];
  stream_sha256: string;
  tail_draws: number;
}
const cases = JSON.parse(readFileSync(path.join(import.meta.dirname, 'numpy_random.cases.json'), 'utf8')) as Case[];

describe('NumpyGenerator reproduces numpy.random.default_rng', () => {
  it.each(cases.map((c) => [c.seed, c] as const))('seed %s', (_seed, c) => {
    const g = new NumpyGenerator(BigInt(c.seed));
    expect([0, 1, 2, 3].map(() => g.randomRaw().toString())).toEqual(c.raw);
    expect(c.normals.map(() => g.standardNormal())).toEqual(c.normals);
    expect(c['normal_0.5_0.04'].map(() => g.normal(0.5, 0.04))).toEqual(c['normal_0.5_0.04']);
    const stream = new Float64Array(200000);
    for (let i = 0; i < stream.length; i++) stream[i] = g.standardNormal();
    expect(stream.filter((x) => Math.abs(x) > 3.6541528853610088).length).toBe(c.tail_draws);
    expect(createHash('sha256').update(new Uint8Array(stream.buffer)).digest('hex')).toBe(c.stream_sha256);
  });
});

describe('pySum is CPython 3.12 sum() over floats', () => {
  it('compensates rounding that left-to-right addition keeps', () => {
    const tenths = Array<number>(10).fill(0.1);
    expect(tenths.reduce((a, b) => a + b, 0)).toBe(0.9999999999999999);
    expect(pySum(tenths)).toBe(1.0);
    expect(pySum([1e100, 1.0, -1e100])).toBe(1.0);
    expect(pySum([])).toBe(0);
    expect(pySum([Infinity, 1])).toBe(Infinity);
  });
});
