// Environments by name. Adding one means adding its folder and one line here.
import { GymError } from '../errors';
import type { AnyEnvironment } from './types';
import { exampleSingleToolCall } from './example_single_tool_call';
import { exampleMultiStep } from './example_multi_step';

const ENVIRONMENTS: readonly AnyEnvironment[] = [exampleSingleToolCall, exampleMultiStep];

const byName = new Map(ENVIRONMENTS.map((env) => [env.name, env]));

export function environmentNames(): string[] {
  return [...byName.keys()].sort();
}

export function getEnvironment(name: string): AnyEnvironment {
  const env = byName.get(name);
  if (!env) {
    throw new GymError('NOT_FOUND', `unknown environment "${name}"; known: ${environmentNames().join(', ')}`);
  }
  return env;
}
