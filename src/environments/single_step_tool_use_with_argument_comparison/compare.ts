// Scores a response's action against the expected one: tool name, then arguments compared as typed
// JSON (fuzzy for multi-word strings), and parallel batches matched as a set by maximum bipartite
// matching. Categories carry NeMo Gym's wording so rollouts stay comparable.
import { PyError } from '../../python/errors';
import { jsonLoads, type PyJson } from '../../python/json';
import { pySplit } from '../../python/str';
import { pyEq, typeName } from '../../python/values';
import { toolCallsOf, type Action, type FunctionCallAction } from './actions';

export const CATEGORIES = {
  NO_ACTION_FOUND: 'No tool call or chat message was found in the response',
  NO_EXPECTED_TOOL_CALL: 'No tool call was found when one was expected',
  EXPECTED_CHAT_MESSAGE_FOUND: 'A chat message was found as expected',
  NO_EXPECTED_CHAT_MESSAGE: 'A tool call was executed when a chat message was expected',
  UNEXPECTED_TOOL: 'The tool in a tool call is not the expected tool',
  ARGUMENTS_DECODE_ERROR: 'An error occurred when decoding the arguments string in a tool call as a JSON object',
  ARGUMENT_VALUE_TYPE_DIFFERENT: 'The type of an argument value in a tool call is different than the expected type',
  ARGUMENT_OBJECT_KEYS_DIFFERENT: 'The keys in an object in an argument value in a tool call are different than the keys in the expected object',
  ARGUMENT_LIST_LENGTH_DIFFERENT: 'A list in an argument value in a tool call has a different length than the expected list',
  ARGUMENT_VALUE_DIFFERENT: 'An argument value in a tool call is different than the expected value',
  EXPECTED_TOOL_CALL: 'A tool call that matches the expected tool call was found',
  FUNCTION_CALL_BATCH_LENGTH_DIFFERENT: 'The number of tool calls in a batch is different than expected',
  EXPECTED_TOOL_CALL_BATCH: 'A tool-call batch that matches the expected tool calls was found',
} as const;
export type Category = keyof typeof CATEGORIES;

export interface ComparatorConfig {
  wordCountSimilarityThreshold: number;
  floatTolerance: number;
  /** Off: only "were the expected calls made?" counts, surplus calls are free. On: the count matters. */
  parallelToolCallRewarding: boolean;
  allowSubset: boolean;
  allowSuperset: boolean;
  parallelRewardMode: 'binary_strict' | 'fractional' | 'f1';
}

export interface Comparison {
  reward: number;
  category: Category;
}

/** Multiset of lower-cased whitespace-separated words. */
function wordCounts(s: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of pySplit(s.toLowerCase())) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

function total(counts: Map<string, number>): number {
  let n = 0;
  for (const c of counts.values()) n += c;
  return n;
}

/** Strings of 2+ words on both sides match when shared words / all words reaches the threshold (max 0.5). */
function stringsMatch(expected: string, actual: string, threshold: number): boolean {
  const e = wordCounts(expected);
  const a = wordCounts(actual);
  if (total(e) < 2 || total(a) < 2) return expected === actual;
  let shared = 0;
  for (const [word, count] of e) shared += Math.min(count, a.get(word) ?? 0);
  return shared / (total(e) + total(a)) >= threshold;
}

/** Null when equal, else why not. Types follow Python's isinstance: a bool passes for an int, an int not for a float. */
function argumentMismatch(expected: PyJson, actual: PyJson, config: ComparatorConfig): Category | null {
  const type = typeName(expected, true);
  const actualType = typeName(actual, true);
  if (actualType !== type && !(type === 'int' && actualType === 'bool')) return 'ARGUMENT_VALUE_TYPE_DIFFERENT';
  if (expected instanceof Map) {
    const other = actual as Map<string, PyJson>;
    if (expected.size !== other.size || [...expected.keys()].some((k) => !other.has(k))) return 'ARGUMENT_OBJECT_KEYS_DIFFERENT';
    for (const [key, value] of expected) {
      const mismatch = argumentMismatch(value, other.get(key)!, config);
      if (mismatch) return mismatch;
    }
    return null;
  }
  if (Array.isArray(expected)) {
    const other = actual as PyJson[];
    if (expected.length !== other.length) return 'ARGUMENT_LIST_LENGTH_DIFFERENT';
    for (let i = 0; i < expected.length; i++) {
      const mismatch = argumentMismatch(expected[i]!, other[i]!, config);
      if (mismatch) return mismatch;
    }
    return null;
  }
  if (type === 'float') {
    // NaN and infinities never come within the tolerance, as in Python.
    return Math.abs((actual as number) - (expected as number)) < config.floatTolerance ? null : 'ARGUMENT_VALUE_DIFFERENT';
  }
  if (type === 'str') return stringsMatch(expected as string, actual as string, config.wordCountSimilarityThreshold) ? null : 'ARGUMENT_VALUE_DIFFERENT';
  return pyEq(expected, actual) ? null : 'ARGUMENT_VALUE_DIFFERENT';
}

export function compareToolCall(expected: FunctionCallAction, actual: FunctionCallAction, config: ComparatorConfig): Comparison {
  if (expected.name !== actual.name) return { reward: 0, category: 'UNEXPECTED_TOOL' };
  let actualArgs: PyJson;
  try {
    actualArgs = jsonLoads(actual.arguments);
  } catch (e) {
    if (e instanceof PyError && e.kind === 'JSONDecodeError') return { reward: 0, category: 'ARGUMENTS_DECODE_ERROR' };
    throw e;
  }
  const mismatch = argumentMismatch(jsonLoads(expected.arguments), actualArgs, config);
  return mismatch ? { reward: 0, category: mismatch } : { reward: 1, category: 'EXPECTED_TOOL_CALL' };
}

/**
 * Maximum bipartite matching (Kuhn's augmenting paths), most constrained expected call first; returns
 * actual index → expected index. Greedy pairing can strand an expected call that had one option.
 */
export function maximumMatching(candidates: readonly number[][]): Map<number, number> {
  const matching = new Map<number, number>();
  const augment = (expectedIndex: number, visited: Set<number>): boolean => {
    for (const actualIndex of candidates[expectedIndex]!) {
      if (visited.has(actualIndex)) continue;
      visited.add(actualIndex);
      const holder = matching.get(actualIndex);
      if (holder === undefined || augment(holder, visited)) {
        matching.set(actualIndex, expectedIndex);
        return true;
      }
    }
    return false;
  };
  const order = candidates.map((_, i) => i).sort((a, b) => candidates[a]!.length - candidates[b]!.length);
  for (const expectedIndex of order) augment(expectedIndex, new Set());
  return matching;
}

function isCountAdmissible(expected: number, actual: number, config: ComparatorConfig): boolean {
  if (actual === expected || !config.parallelToolCallRewarding) return true;
  return actual < expected ? config.allowSubset : config.allowSuperset;
}

function batchReward(matched: number, expected: number, actual: number, config: ComparatorConfig): number {
  if (!config.parallelToolCallRewarding) return matched === expected ? 1 : 0;
  if (config.parallelRewardMode === 'f1') return expected + actual > 0 ? (2 * matched) / (expected + actual) : 0;
  const required = config.allowSubset ? Math.min(expected, actual) : expected;
  if (config.parallelRewardMode === 'fractional') return required > 0 ? matched / required : 0;
  return matched === required ? 1 : 0;
}

/** The calls compared as an unordered multiset; a one-to-one pair keeps the single-call categories. */
export function compareToolCalls(expected: FunctionCallAction[], actual: FunctionCallAction[], config: ComparatorConfig): Comparison {
  if (expected.length === 1 && actual.length === 1) return compareToolCall(expected[0]!, actual[0]!, config);
  if (!isCountAdmissible(expected.length, actual.length, config)) return { reward: 0, category: 'FUNCTION_CALL_BATCH_LENGTH_DIFFERENT' };

  // Each expected call's matching actual calls, and the first reason past the tool name why others missed.
  const candidates: number[][] = [];
  const reasons: Category[] = [];
  for (const e of expected) {
    const matches: number[] = [];
    let reason: Category = 'UNEXPECTED_TOOL';
    actual.forEach((a, i) => {
      const result = compareToolCall(e, a, config);
      if (result.reward === 1) matches.push(i);
      else if (reason === 'UNEXPECTED_TOOL') reason = result.category;
    });
    candidates.push(matches);
    reasons.push(reason);
  }

  const matching = maximumMatching(candidates);
  const reward = batchReward(matching.size, expected.length, actual.length, config);
  if (reward === 1) return { reward, category: expected.length === 1 ? 'EXPECTED_TOOL_CALL' : 'EXPECTED_TOOL_CALL_BATCH' };

  const matchedExpected = new Set(matching.values());
  const firstUnmatched = expected.findIndex((_, i) => !matchedExpected.has(i));
  // Only surplus or only missing calls left: blame the count, not an argument comparison.
  if (firstUnmatched === -1 || matchedExpected.size === actual.length) return { reward, category: 'FUNCTION_CALL_BATCH_LENGTH_DIFFERENT' };
  return { reward, category: reasons[firstUnmatched]! };
}

export function compareAction(expected: Action, actual: Action | null, config: ComparatorConfig): Comparison {
  if (actual === null) return { reward: 0, category: 'NO_ACTION_FOUND' };
  if (expected.type === 'message') {
    return actual.type === 'message' ? { reward: 1, category: 'EXPECTED_CHAT_MESSAGE_FOUND' } : { reward: 0, category: 'NO_EXPECTED_CHAT_MESSAGE' };
  }
  if (actual.type === 'message') return { reward: 0, category: 'NO_EXPECTED_TOOL_CALL' };
  return compareToolCalls(toolCallsOf(expected), toolCallsOf(actual), config);
}
