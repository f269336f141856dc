// Gymflow's own routing strategies (src/gateway/backends/routed/strategy.ts) and the routed spec's checks:
// which target a rollout gets, that seeded random is a function of seed and session, that weights and rules
// are honoured, and that a spec naming a target it does not have is refused with the field named.
import { describe, expect, it } from 'vitest';
import { chooseTarget, valueAt } from '../../src/gateway/backends/routed/strategy';
import { parseModelSpec, RoutingStrategy } from '../../src/gateway/spec';

const TARGETS = ['strong', 'weak', 'mid'];
const pick = (strategy: unknown, session: string, ordinal = 0, task: Record<string, unknown> = {}) => chooseTarget(RoutingStrategy.parse(strategy), TARGETS, { session, ordinal, task });

describe('routing strategies', () => {
  it('fixed always answers its target', () => {
    for (let i = 0; i < 20; i++) expect(pick({ type: 'fixed', target: 'weak' }, `s${i}`, i)).toBe('weak');
  });

  it('round-robin deals targets in order of first calls', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => pick({ type: 'round_robin' }, `s${n}`, n))).toEqual(['strong', 'weak', 'mid', 'strong', 'weak', 'mid', 'strong']);
  });

  it('seeded random depends on seed and session only, and spreads sessions over every target', () => {
    const sessions = Array.from({ length: 600 }, (_, i) => `${i}-0.a1`);
    const a = sessions.map((s, i) => pick({ type: 'random', seed: 7 }, s, i));
    // The ordinal (arrival order) does not matter: a resumed run places each rollout where it was.
    expect(sessions.map((s) => pick({ type: 'random', seed: 7 }, s, 0))).toEqual(a);
    expect(sessions.map((s, i) => pick({ type: 'random', seed: 8 }, s, i))).not.toEqual(a);
    for (const t of TARGETS) expect(a.filter((x) => x === t).length).toBeGreaterThan(120);
  });

  it('random with weights follows them, and never picks an unlisted target', () => {
    const sessions = Array.from({ length: 1000 }, (_, i) => `r${i}`);
    const picks = sessions.map((s) => pick({ type: 'random', seed: 1, weights: { strong: 3, weak: 1 } }, s));
    expect(picks).not.toContain('mid');
    const strong = picks.filter((x) => x === 'strong').length;
    // 750 expected; far outside binomial noise (sd ≈ 14) would mean the weights are ignored.
    expect(strong).toBeGreaterThan(650);
    expect(strong).toBeLessThan(850);
  });

  it('rules match dotted paths into the task row, first rule first, else the default', () => {
    const strategy = {
      type: 'rules',
      rules: [
        { when: { category: 'math', 'metadata.level': ['hard', 'olympiad'] }, target: 'strong' },
        { when: { category: 'math' }, target: 'mid' },
        { when: { 'responses_create_params.metadata.cheap': true }, target: 'weak' },
      ],
      default: 'weak',
    };
    expect(pick(strategy, 's', 0, { category: 'math', metadata: { level: 'hard' } })).toBe('strong');
    expect(pick(strategy, 's', 0, { category: 'math', metadata: { level: 'easy' } })).toBe('mid');
    expect(pick(strategy, 's', 0, { category: 'code', responses_create_params: { metadata: { cheap: true } } })).toBe('weak');
    expect(pick({ ...strategy, default: 'mid' }, 's', 0, { category: 'code' })).toBe('mid');
    expect(valueAt({ a: [1] }, 'a.0')).toBeUndefined();
  });
});

describe('the routed spec', () => {
  const target = { backend: 'mock', env: 'mcqa' };
  it('refuses a strategy that names a target it does not have, naming the field', () => {
    expect(() => parseModelSpec({ backend: 'routed', strategy: { type: 'fixed', target: 'gone' }, targets: { a: target } } as never)).toThrow('strategy.target: "gone" is not one of the targets (a)');
    expect(() => parseModelSpec({ backend: 'routed', strategy: { type: 'rules', rules: [{ when: { x: 1 }, target: 'b' }], default: 'a' }, targets: { a: target } } as never)).toThrow(
      'strategy.rules.0.target',
    );
    expect(() => parseModelSpec({ backend: 'routed', strategy: { type: 'round_robin' }, targets: {} } as never)).toThrow('targets: name at least one target');
    expect(() => parseModelSpec({ backend: 'routed', strategy: { type: 'coin' }, targets: { a: target } } as never)).toThrow(/strategy\.type/);
  });
  it('takes a Switchyard proxy as a target, but not another router', () => {
    expect(
      parseModelSpec({ backend: 'routed', strategy: { type: 'round_robin' }, targets: { a: target, b: { backend: 'switchyard', model: 'fixed', base_url: 'http://127.0.0.1:1/v1' } } } as never)
        .backend,
    ).toBe('routed');
    expect(() =>
      parseModelSpec({ backend: 'routed', strategy: { type: 'round_robin' }, targets: { a: { backend: 'routed', strategy: { type: 'round_robin' }, targets: { b: target } } } } as never),
    ).toThrow(/targets\.a\.backend/);
  });
});
