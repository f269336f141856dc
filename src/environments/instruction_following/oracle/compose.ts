// Writes an answer to a plan: body sentences sized to the sentence and word bounds, laid out in
// paragraphs, with keywords, placeholders, highlights, section markers, bullets, title, postscript
// and endings put where they disturb the other instructions least.
import type { Rng } from '../../../util/rng';
import type { Plan } from './plan';
import { fillerWords, LANGUAGE_SENTENCES, PALINDROMES } from './vocabulary';

export interface Size {
  sentences: number;
  wordsPerSentence: number;
}

export function initialSize(plan: Plan): Size {
  const structural = Math.max(plan.paragraphs, 1);
  let sentences = Math.max(plan.sentences.min, structural);
  if (Number.isFinite(plan.sentences.max)) sentences = Math.max(1, Math.min(sentences, plan.sentences.max));
  let wordsPerSentence = 6;
  if (plan.words.min > 0) wordsPerSentence = Math.max(wordsPerSentence, Math.ceil(plan.words.min / sentences) + 2);
  if (Number.isFinite(plan.words.max)) wordsPerSentence = Math.max(1, Math.min(wordsPerSentence, Math.floor(plan.words.max / (sentences + 2)) - 1));
  return { sentences, wordsPerSentence };
}

class Words {
  private i = 0;
  constructor(
    private readonly pool: string[],
    private readonly unique: boolean,
  ) {}
  next(): string {
    if (this.unique && this.i >= this.pool.length) return `w${this.i++}`;
    return this.pool[this.i++ % this.pool.length]!;
  }
}

export function compose(plan: Plan, size: Size, rng: Rng): string {
  if (plan.constrained) return 'My answer is yes.';
  if (plan.fewLetters) return '42';
  const words = new Words(fillerWords([...plan.avoid, ...plan.keywords.keys()], plan.avoidLetters, rng), plan.uniqueWords);
  const style: Style = {
    terminal: ['.', '!', '?'].find((t) => !plan.banned.has(t)) ?? '',
    cased: (w) => (plan.caseStyle === 'upper' && w !== plan.position?.keyword ? w.toUpperCase() : w),
  };
  const native = plan.language ? LANGUAGE_SENTENCES[plan.language] : undefined;
  const sentences = sentenceWords(plan, size, words, style).map((s) => native ?? renderSentence(plan, s, style));
  return assemble(plan, sentences, words, style);
}

interface Style {
  terminal: string;
  cased: (word: string) => string;
}

/** The words of each body sentence, with every in-sentence requirement placed. */
function sentenceWords(plan: Plan, size: Size, words: Words, { cased }: Style): string[][] {
  const sentences = Array.from({ length: size.sentences }, () => Array.from({ length: size.wordsPerSentence }, () => words.next()));
  extraTokens(plan, words).forEach((token, k) => sentences[k % sentences.length]!.splice(1, 0, token));
  // Section markers only need to occur, so they go inside sentences, after their first word.
  for (let k = 0; k < (plan.sections?.count ?? 0); k++) sentences[k % sentences.length]!.splice(1, 0, `${plan.sections!.splitter} ${k + 1}`);
  const last = sentences.at(-1)!;
  if (plan.title) last.splice(Math.max(0, last.length - 1), 0, `<<${cased(words.next())} ${cased(words.next())}>>`);
  if (plan.firstWord) sentences[0]![0] = plan.firstWord;
  for (const sentence of sentences) {
    if (plan.sentenceStart) sentence.unshift(plan.sentenceStart);
    if (plan.sentenceEnd) sentence.push(plan.sentenceEnd);
  }
  const position = plan.position;
  const target = position ? sentences[position.n - 1] : undefined;
  if (position && target) {
    while (target.length < position.m - 1) target.push(words.next());
    target.splice(position.m - 1, 0, position.keyword);
  }
  return sentences;
}

function renderSentence(plan: Plan, sentence: string[], { cased, terminal }: Style): string {
  const text = sentence.map(cased).join(' ');
  const capitalise = plan.caseStyle === 'normal' && !plan.noCapitalWords && sentence[0] !== plan.position?.keyword;
  return (capitalise ? text.charAt(0).toUpperCase() + text.slice(1) : text) + terminal;
}

/** Sentences into paragraphs, then bullets, postscript, ending and wrapping. */
function assemble(plan: Plan, sentences: string[], words: Words, { cased, terminal }: Style): string {
  const paragraphs = splitEvenly(sentences, Math.max(plan.paragraphs, 1)).map((p) => p.join(' '));
  const nth = plan.nthFirst;
  if (nth && paragraphs[nth.n - 1] !== undefined) paragraphs[nth.n - 1] = `${cased(nth.word)} ${paragraphs[nth.n - 1]}`;
  if (plan.bullets) {
    const bullets = Array.from({ length: plan.bullets }, () => `* ${cased(words.next())} ${cased(words.next())}`);
    paragraphs[paragraphs.length - 1] += `\n${bullets.join('\n')}`;
  }
  let text = paragraphs.join(plan.separator);
  const starter = plan.sentenceStart ? `${cased(plan.sentenceStart)} ` : '';
  if (plan.postscript) text += `\n${starter}${plan.postscript} ${cased(words.next())}${terminal}`;
  if (plan.endPhrase) text += `\n${plan.endPhrase}`;
  else if (plan.lastWord) text += `\n${starter}${cased(plan.lastWord)}${terminal}`;
  if (plan.startEnd) text += ` ${text.split(/\s+/)[0]!.replace(/[^\p{L}\p{N}]/gu, '')}`;
  return plan.quote ? `"${text}"` : text;
}

/** Tokens every answer of this plan must contain somewhere: keywords, placeholders, highlights, … */
function extraTokens(plan: Plan, words: Words): string[] {
  const cased = (w: string) => (plan.caseStyle === 'upper' ? w.toUpperCase() : plan.caseStyle === 'lower' ? w.toLowerCase() : w);
  const out: string[] = [];
  for (const [word, times] of plan.keywords) for (let i = 0; i < times; i++) out.push(word);
  for (let i = 0; i < plan.placeholders; i++) out.push(`[${cased(words.next())}]`);
  for (let i = 0; i < plan.highlights; i++) out.push(`*${cased(words.next())}*`);
  for (const [letter, times] of plan.letters) out.push(cased(letter.repeat(Math.max(times, 1))));
  for (let i = 0; i < (plan.capitalWords ?? 0); i++) out.push(words.next().toUpperCase());
  if (plan.palindrome) out.push(cased(PALINDROMES.find((p) => ![...plan.avoidLetters].some((l) => p.includes(l))) ?? 'a'));
  return out;
}

function splitEvenly<T>(items: readonly T[], parts: number): T[][] {
  const out: T[][] = Array.from({ length: parts }, () => []);
  items.forEach((item, i) => out[Math.floor((i * parts) / items.length)]!.push(item));
  return out.map((p, i) => (p.length > 0 ? p : [items[i % items.length]!]));
}
