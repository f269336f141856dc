// A run's search attributes must stay under Temporal's 2,048-byte keyword limit whatever settings its
// environment carries (HLE's whole judge prompt), and distinct long values must stay distinct.
import { describe, expect, it } from 'vitest';
import { keywordValue } from '../../src/runs/client';

const bytes = (v: string) => Buffer.byteLength(JSON.stringify(v));

describe('keywordValue', () => {
  it('leaves a short value alone', () => {
    expect(keywordValue('equivalence_llm_judge')).toBe('equivalence_llm_judge');
  });

  it('cuts a long value to the limit as its JSON payload counts it (escapes, multi-byte characters), ending in a hash of the whole', () => {
    const long = 'mock:equivalence_llm_judge(judge_prompt_template="' + 'Judge \\"this\\"\n é 区 '.repeat(200) + '")';
    const a = keywordValue(long);
    expect(bytes(a)).toBeLessThanOrEqual(2048);
    expect(bytes(a)).toBeGreaterThan(2000);
    expect(a.startsWith('mock:equivalence_llm_judge(')).toBe(true);
    expect(a).toMatch(/…#[0-9a-f]{16}$/);
    expect(keywordValue(long + 'x')).not.toBe(a);
    expect(keywordValue(long)).toBe(a);
  });
});
