// RULER v2's synthetic needle-in-a-haystack tasks, made offline for any context length: each row hides
// needles ("One of the special magic numbers for <key> is: <value>.") among distractor sentences of the
// same shape, as many as fit the token budget, and asks for the values of the queried keys.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { z } from 'zod';
import { GymError } from '../../errors';
import { seededRng, type Rng } from '../../util/rng';
import { ADJECTIVES, NOUNS } from './words';

const NeedleType = z.enum(['numbers', 'words', 'uuids']);
type NeedleType = z.infer<typeof NeedleType>;

/** One synthetic family: how many keys hide how many values each, how many keys are asked for. */
interface NiahShape {
  numNeedleK: number;
  numNeedleV: number;
  numNeedleQ: number;
  typeNeedleK: NeedleType;
  typeNeedleV: NeedleType;
  numDigitsK: number;
  numDigitsV: number;
}

/**
 * The RULER v2 sub-tasks that are wholly synthetic, with NeMo Skills' settings. The other eight
 * (mk/mv_niah easy–hard, qa_*) are built from MMLU and HotpotQA questions, which need downloads.
 */
export const SYNTHETIC_TASKS: Readonly<Record<string, NiahShape>> = {
  mk_niah_basic: { numNeedleK: 1, numNeedleV: 1, numNeedleQ: 1, typeNeedleK: 'words', typeNeedleV: 'numbers', numDigitsK: 7, numDigitsV: 10 },
  mv_niah_basic: { numNeedleK: 1, numNeedleV: 4, numNeedleQ: 1, typeNeedleK: 'words', typeNeedleV: 'numbers', numDigitsK: 7, numDigitsV: 10 },
};

export const DOWNLOAD_ONLY_TASKS = ['mk_niah_easy', 'mk_niah_medium', 'mk_niah_hard', 'mv_niah_easy', 'mv_niah_medium', 'mv_niah_hard', 'qa_basic', 'qa_easy', 'qa_medium', 'qa_hard'] as const;

export const GenerateOptions = z.object({
  tasks: z.array(z.string()).min(1).default(Object.keys(SYNTHETIC_TASKS)),
  /** Token budget of the whole prompt (o200k_base tokens). */
  maxSeqLength: z.number().int().min(64),
  numSamples: z.number().int().min(1),
  seed: z.number().int().default(42),
});
export type GenerateOptions = z.input<typeof GenerateOptions>;

export interface Ruler2Row {
  responses_create_params: { input: { role: 'user'; content: string }[] };
  expected_answer: string[];
  eval_type: 'ruler2';
  match_type: 'all';
  task: string;
  length: number;
  index: number;
}

function randomNeedle(rng: Rng, type: NeedleType, digits: number): string {
  switch (type) {
    case 'numbers': {
      const low = 10 ** (digits - 1);
      return String(low + rng.int(9 * low));
    }
    case 'words':
      return `${rng.pick(ADJECTIVES)}-${rng.pick(NOUNS)}`;
    case 'uuids': {
      const hex = Array.from({ length: 32 }, () => rng.int(16).toString(16));
      hex[12] = '4';
      hex[16] = (8 + rng.int(4)).toString(16);
      const h = hex.join('');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
  }
}

function shuffle<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** k distinct indices of [0, n), as random.sample draws them (any order). */
function sample(rng: Rng, n: number, k: number): number[] {
  return shuffle(
    rng,
    Array.from({ length: n }, (_, i) => i),
  ).slice(0, k);
}

const sentence = (typeV: NeedleType, key: string, value: string) => `One of the special magic ${typeV} for ${key} is: ${value}.`;

/** One prompt with `numHaystack` distractor sentences, and the values it asks for. */
function niahPrompt(shape: NiahShape, numHaystack: number, rng: Rng): { question: string; answers: string[] } {
  const numK = Math.max(shape.numNeedleK, shape.numNeedleQ);
  const keys: string[] = [];
  const values: string[][] = [];
  const needles: string[] = [];
  while (keys.length < numK) {
    const key = randomNeedle(rng, shape.typeNeedleK, shape.numDigitsK);
    if (keys.includes(key)) continue;
    keys.push(key);
    const vs = Array.from({ length: shape.numNeedleV }, () => randomNeedle(rng, shape.typeNeedleV, shape.numDigitsV));
    values.push(vs);
    for (const v of vs) needles.push(sentence(shape.typeNeedleV, key, v));
  }
  shuffle(rng, needles);
  // Distractor keys never equal a needle key: one would make the question ambiguous.
  const distractorKey = () => {
    for (;;) {
      const key = randomNeedle(rng, shape.typeNeedleK, shape.numDigitsK);
      if (!keys.includes(key)) return key;
    }
  };
  let sentences: string[];
  if (shape.numNeedleV === 1) {
    sentences = Array.from({ length: numHaystack }, () => sentence(shape.typeNeedleV, distractorKey(), randomNeedle(rng, shape.typeNeedleV, shape.numDigitsV)));
  } else {
    // Distractor keys repeat numNeedleV times, so a queried key is not the only one with several values.
    const groupKeys = Array.from({ length: Math.ceil(numHaystack / shape.numNeedleV) }, distractorKey);
    const repeated = Array.from({ length: shape.numNeedleV }, () => groupKeys)
      .flat()
      .slice(0, numHaystack);
    sentences = shuffle(
      rng,
      repeated.map((key) => sentence(shape.typeNeedleV, key, randomNeedle(rng, shape.typeNeedleV, shape.numDigitsV))),
    );
  }
  const positions = sample(rng, numHaystack, Math.min(needles.length, numHaystack)).sort((a, b) => b - a);
  positions.forEach((at, i) => sentences.splice(at, 0, needles[i]!));
  for (const extra of needles.slice(positions.length)) sentences.push(extra);

  const asked = sample(rng, numK, shape.numNeedleQ);
  const queries = asked.map((i) => keys[i]!);
  const answers = asked.flatMap((i) => values[i]!);
  const query = queries.length > 1 ? `${queries.slice(0, -1).join(', ')}, and ${queries.at(-1)}` : queries[0]!;
  const context = sentences.join('\n');
  const question =
    shape.numNeedleQ * shape.numNeedleV === 1
      ? `A special magic ${shape.typeNeedleV.slice(0, -1)} is hidden within the following text. Make sure to memorize it. I will quiz you about the ${shape.typeNeedleV.slice(0, -1)} afterwards.\n${context}\nWhat is the special magic ${shape.typeNeedleV.slice(0, -1)} for ${query} mentioned in the provided text? The special magic ${shape.typeNeedleV.slice(0, -1)} for ${query} mentioned in the provided text is`
      : `Some special magic ${shape.typeNeedleV} are hidden within the following text. Make sure to memorize them. I will quiz you about the ${shape.typeNeedleV} afterwards.\n${context}\nWhat are all the special magic ${shape.typeNeedleV} for ${query} mentioned in the provided text? The special magic ${shape.typeNeedleV} for ${query} mentioned in the provided text are`;
  return { question, answers };
}

/** The largest haystack whose prompt fits the budget, by binary search as RULER sizes it. */
function haystackSize(shape: NiahShape, maxSeqLength: number, seed: string): number {
  const step = Math.max(5, shape.numNeedleV * shape.numNeedleK);
  const tokens = (n: number) => countTokens(niahPrompt(shape, n, seededRng(`${seed}:size:${n}`)).question);
  const perSentence = tokens(step) / step;
  let low = step;
  let high = Math.max(Math.floor((maxSeqLength / perSentence) * 3), step * 2);
  let best = step;
  while (low <= high) {
    const mid = Math.floor((low + high) / 2);
    if (tokens(mid) <= maxSeqLength) {
      best = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return best;
}

/** The rows of the chosen synthetic sub-tasks; the same options always give the same rows. */
export function generateRuler2(options: GenerateOptions): Ruler2Row[] {
  const opts = GenerateOptions.parse(options);
  const rows: Ruler2Row[] = [];
  for (const task of opts.tasks) {
    const shape = SYNTHETIC_TASKS[task];
    if (!shape) {
      const why = (DOWNLOAD_ONLY_TASKS as readonly string[]).includes(task) ? `is built from MMLU or HotpotQA questions, which need a download (unavailable offline)` : 'is not a RULER v2 sub-task';
      throw new GymError('BAD_FLAG', `--task ${task} ${why}; synthetic tasks: ${Object.keys(SYNTHETIC_TASKS).join(', ')}`);
    }
    const size = haystackSize(shape, opts.maxSeqLength, `${opts.seed}:${task}`);
    for (let index = 0; index < opts.numSamples; index++) {
      const rng = seededRng(`${opts.seed}:${task}:${index}`);
      // A sample can come out longer than the probe that sized it: shrink until it fits.
      for (let n = size; ; n -= Math.max(5, shape.numNeedleV)) {
        const { question, answers } = niahPrompt(shape, Math.max(n, 1), rng);
        const length = countTokens(question);
        if (length <= opts.maxSeqLength || n <= 1) {
          if (length > opts.maxSeqLength) throw new GymError('BAD_FLAG', `--max-seq-length ${opts.maxSeqLength} is too small for ${task}: the shortest prompt has ${length} tokens`);
          rows.push({ responses_create_params: { input: [{ role: 'user', content: question }] }, expected_answer: answers, eval_type: 'ruler2', match_type: 'all', task, length, index });
          break;
        }
      }
    }
  }
  return rows;
}
