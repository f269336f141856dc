// Gymflow's own routing strategies, pure: which of a routed model's targets serves a rollout, decided once
// at its first call (the backend keeps it for the rest). Fixed, round-robin in order of first calls,
// seeded random by session (the same rollout gets the same target in every process and on resume), rules.
import type { RoutingStrategy } from '../../spec';
import { seededRng } from '../../../util/rng';

export interface RoutingInput {
  /** The rollout's session: the rollout-scoped URL's attempt id, or the rollout id. */
  session: string;
  /** How many sessions were placed before this one (round-robin's turn). */
  ordinal: number;
  /** The task row, for `rules`; empty when the caller gave none. */
  task: Record<string, unknown>;
}

/** The target for a new session; `targets` in the spec's order. */
export function chooseTarget(strategy: RoutingStrategy, targets: readonly string[], input: RoutingInput): string {
  switch (strategy.type) {
    case 'fixed':
      return strategy.target;
    case 'round_robin':
      return targets[input.ordinal % targets.length]!;
    case 'random': {
      // Unlisted targets weigh 0 when weights are given, 1 each otherwise.
      const weights = targets.map((t) => (strategy.weights ? (strategy.weights[t] ?? 0) : 1));
      let x = seededRng(`${strategy.seed}\n${input.session}`).next() * weights.reduce((a, b) => a + b, 0);
      for (let i = 0; i < targets.length; i++) if ((x -= weights[i]!) < 0) return targets[i]!;
      return targets[weights.findLastIndex((w) => w > 0)]!;
    }
    case 'rules':
      return strategy.rules.find((rule) => Object.entries(rule.when).every(([field, allowed]) => matches(valueAt(input.task, field), allowed)))?.target ?? strategy.default;
  }
}

/** A dotted path into the row: `category`, `responses_create_params.metadata.level`. */
export function valueAt(row: unknown, dotted: string): unknown {
  let node = row;
  for (const key of dotted.split('.')) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function matches(value: unknown, allowed: string | number | boolean | (string | number | boolean)[]): boolean {
  return (Array.isArray(allowed) ? allowed : [allowed]).some((a) => a === value);
}
