// Terminal-Bench 2.1's reward rule as NeMo Gym's verify applies it: the tests write a number to
// /logs/verifier/reward.txt and that number, read as Python's float() reads text, is the reward.

/**
 * The whitespace float() ignores around the number: ASCII's six, and above ASCII what Python's
 * str.isspace() calls whitespace (the ASCII separators \x1c-\x1f are not stripped).
 */
const PY_SPACE = '\\t\\n\\v\\f\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const EDGES = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'gu');
const DIGITS = '[0-9](?:_?[0-9])*';
/** Python's float literal grammar (PEP 515 underscores between digits), after digits are made ASCII. */
const FLOAT = new RegExp(`^[+-]?(?:(?:(?:${DIGITS})?\\.${DIGITS}|${DIGITS}\\.?)(?:[eE][+-]?${DIGITS})?|inf|infinity|nan)$`, 'i');
const UNICODE_DIGIT = /\p{Nd}/u;

/**
 * A Unicode decimal digit as its ASCII one (float() accepts any script's): Unicode keeps each script's
 * digits as one run of ten from zero, so the digit's value is its place in its run.
 */
function asciiDigit(char: string): string {
  let value = 0;
  let cp = char.codePointAt(0)!;
  while (UNICODE_DIGIT.test(String.fromCodePoint(cp - 1))) {
    cp--;
    value++;
  }
  return String(value % 10);
}

/** `float(text)` in Python, or undefined where Python raises ValueError. */
export function pythonFloat(text: string): number | undefined {
  const ascii = [...text].map((c) => ((c >= '0' && c <= '9') || !UNICODE_DIGIT.test(c) ? c : asciiDigit(c))).join('');
  const core = ascii.replace(EDGES, '');
  if (!FLOAT.test(core)) return undefined;
  const lower = core.toLowerCase().replace(/_/g, '');
  const sign = lower.startsWith('-') ? -1 : 1;
  const unsigned = lower.replace(/^[+-]/, '');
  if (unsigned === 'nan') return NaN;
  if (unsigned === 'inf' || unsigned === 'infinity') return sign * Infinity;
  return Number(lower);
}

/** How the test run went: whether `bash /tests/test.sh` ran at all, and the reward file it left. */
export interface TestOutcome {
  /** False when copying the tests in or starting the script failed (NeMo Gym: an exception, no result). */
  ran: boolean;
  timedOut: boolean;
  /** /logs/verifier/reward.txt's text; undefined when it could not be read (never written). */
  rewardText?: string;
}

export interface RewardVerdict {
  reward: number;
  /** NeMo Gym's: the tests ran and their reward file was read as a number. */
  evaluation_completed: boolean;
  failure_reason: string | null;
}

/**
 * NeMo Gym's rule: reward 0.0 and evaluation_completed false unless the tests ran and the reward file
 * reads as a float, which is then the reward whatever the script's exit status. Gymflow's addition:
 * `failure_reason` says why a reward is not positive. A non-finite number (`nan`, `inf`), which NeMo
 * Gym would record as the reward, is 0.0 here: a JSON record cannot hold it.
 */
export function terminalBenchReward(outcome: TestOutcome): RewardVerdict {
  if (!outcome.ran) return { reward: 0.0, evaluation_completed: false, failure_reason: 'tests_not_run' };
  if (outcome.rewardText === undefined) return { reward: 0.0, evaluation_completed: false, failure_reason: outcome.timedOut ? 'tests_timed_out' : 'no_reward_file' };
  const value = pythonFloat(outcome.rewardText);
  if (value === undefined) return { reward: 0.0, evaluation_completed: false, failure_reason: 'reward_not_a_number' };
  if (!Number.isFinite(value)) return { reward: 0.0, evaluation_completed: true, failure_reason: 'reward_not_finite' };
  return { reward: value, evaluation_completed: true, failure_reason: value > 0 ? null : 'tests_failed' };
}

/**
 * AnyTerminal's rule (responses_api_agents/anyterminal_agent): `resolved` when the reward file's number
 * is above 0, and the reward 1.0 when resolved, else 0.0; a half-passing 0.5 is a full 1.0 here.
 */
export function anyTerminalReward(outcome: TestOutcome): RewardVerdict & { resolved: boolean } {
  const verdict = terminalBenchReward(outcome);
  const resolved = verdict.evaluation_completed && verdict.reward > 0;
  return { ...verdict, reward: resolved ? 1.0 : 0.0, resolved };
}
