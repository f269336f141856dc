// The mock policy's player for instruction_following: a correct answer is composed to the row's
// instructions and re-graded (resizing it when sentence or word counts miss); a wrong answer is the
// first of a few blunt rewrites that fails at least one instruction.
import type { ConversationItem } from '../../../schemas/responses';
import type { Rng } from '../../../util/rng';
import { assistantMessage } from '../../example_single_tool_call';
import type { Oracle, OracleOptions } from '../../oracle';
import { countWords } from '../checkers/length';
import { gradeAnswer, rewardOf } from '../grade';
import { verifierMetadata, type InstructionFollowingTask, type VerifierMetadata } from '../task';
import { sentTokenize } from '../text/punkt';
import { compose, initialSize, type Size } from './compose';
import { planFor, type Plan } from './plan';
import { shaped } from './shapes';

const ATTEMPTS = 8;

export const instructionFollowingOracle: Oracle<InstructionFollowingTask> = (task, _history, options) => oracleAnswer(verifierMetadata(task), options);

function oracleAnswer(meta: VerifierMetadata, { correct, rng }: OracleOptions): ConversationItem[] {
  return [assistantMessage(correct ? correctAnswer(meta, rng) : wrongAnswer(meta, correctAnswer(meta, rng)))];
}

function correctAnswer(meta: VerifierMetadata, rng: Rng): string {
  const plan = planFor(meta);
  let size = initialSize(plan);
  let best = { text: '', passed: -1 };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const text = plan.shape ? shaped(plan.shape, () => compose(plan, size, rng)) : compose(plan, size, rng);
    const passed = gradeAnswer(meta, text).strict.filter(Boolean).length;
    if (passed > best.passed) best = { text, passed };
    if (passed === meta.instruction_id_list.length) break;
    size = resize(plan, size, text);
  }
  return best.text;
}

/** Moves the body size toward the sentence and word bounds by what the last answer missed them by. */
function resize(plan: Plan, size: Size, text: string): Size {
  const sentences = sentTokenize(text).length;
  const words = countWords(text);
  let { sentences: s, wordsPerSentence: w } = size;
  if (sentences < plan.sentences.min) s += plan.sentences.min - sentences;
  if (sentences > plan.sentences.max) s = Math.max(1, s - (sentences - plan.sentences.max));
  if (words < plan.words.min) w += Math.ceil((plan.words.min - words) / s) + 1;
  if (words > plan.words.max) w = Math.max(1, w - Math.ceil((words - plan.words.max) / s));
  return { sentences: s, wordsPerSentence: w };
}

function wrongAnswer(meta: VerifierMetadata, correct: string): string {
  const mentioned = meta.kwargs
    .flatMap((kw) => Object.values((kw ?? {}) as Record<string, unknown>))
    .flat()
    .filter((v) => typeof v === 'string');
  const long = Array.from({ length: 60 }, (_, i) => `word${i}, and more text here!`).join(' ');
  const candidates = [
    '',
    `${correct} ${mentioned.join(' ')}, ${long}`,
    `${correct} ${Array.from({ length: 5 }, () => mentioned.join(' the ')).join(' the ')}`,
    'alpha beta gamma, delta epsilon.',
    'I cannot help with that.',
    correct.toUpperCase(),
    correct.toLowerCase(),
    `${correct}\n\n***\n\n- extra, part.\n* another!`,
    correct.replace(/\s+/g, ''),
  ];
  return candidates.find((text) => rewardOf(gradeAnswer(meta, text).strict, meta.grading_mode) < 1) ?? '';
}
