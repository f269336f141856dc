// What an answer must look like to follow a row's instructions, read off the instruction ids and
// kwargs: the constraints the composer then writes an answer to. Instructions with a fixed whole-
// answer shape (copying, JSON, two responses, …) are kept as `shape` and handled by the composer.
import type { VerifierMetadata } from '../task';

export interface Plan {
  caseStyle: 'normal' | 'upper' | 'lower';
  language?: string;
  sentences: { min: number; max: number };
  words: { min: number; max: number };
  paragraphs: number;
  separator: '\n\n' | '\n***\n';
  sections?: { splitter: string; count: number };
  nthFirst?: { n: number; word: string };
  sentenceStart?: string;
  sentenceEnd?: string;
  firstWord?: string;
  lastWord?: string;
  /** Words to place a set number of times (keyword counts are case-insensitive substring matches). */
  keywords: Map<string, number>;
  /** Words that must appear nowhere, not even inside other words. */
  avoid: Set<string>;
  avoidLetters: Set<string>;
  letters: Map<string, number>;
  placeholders: number;
  highlights: number;
  bullets?: number;
  capitalWords?: number;
  noCapitalWords: boolean;
  palindrome: boolean;
  title: boolean;
  postscript?: string;
  endPhrase?: string;
  constrained: boolean;
  quote: boolean;
  fewLetters: boolean;
  banned: Set<string>;
  uniqueWords: boolean;
  noAdjacentConsecutive: boolean;
  startEnd: boolean;
  /** A word that must be the m-th token of the n-th sentence, exactly as written. */
  position?: { keyword: string; n: number; m: number };
  shape?: Shape;
}

export type Shape =
  | { kind: 'copy'; text: string; times: number }
  | { kind: 'repeat_prompt'; prompt: string }
  | { kind: 'repeat_phrase'; phrase: string; times: number }
  | { kind: 'composition'; sentences: number; words: number }
  | { kind: 'json' }
  | { kind: 'two_responses' }
  | { kind: 'hyphens' }
  | { kind: 'square_brackets' }
  | { kind: 'bigrams' };

type Kw = Record<string, unknown>;
const n = (v: unknown, fallback: number) => (typeof v === 'number' ? v : fallback);
const s = (v: unknown, fallback: string) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : fallback);

export function planFor(meta: VerifierMetadata): Plan {
  const plan: Plan = {
    caseStyle: 'normal',
    sentences: { min: 2, max: Infinity },
    words: { min: 0, max: Infinity },
    paragraphs: 1,
    separator: '\n\n',
    keywords: new Map(),
    avoid: new Set(),
    avoidLetters: new Set(),
    letters: new Map(),
    placeholders: 0,
    highlights: 0,
    noCapitalWords: false,
    palindrome: false,
    title: false,
    constrained: false,
    quote: false,
    fewLetters: false,
    banned: new Set(),
    uniqueWords: false,
    noAdjacentConsecutive: false,
    startEnd: false,
  };
  meta.instruction_id_list.forEach((id, i) => applyInstruction(plan, id, (meta.kwargs[i] ?? {}) as Kw));
  return plan;
}

function bound(plan: Plan, key: 'sentences' | 'words', relation: unknown, threshold: number): void {
  if (relation === 'less than') plan[key].max = Math.min(plan[key].max, threshold - 1);
  else plan[key].min = Math.max(plan[key].min, threshold);
}

function applyInstruction(plan: Plan, id: string, kw: Kw): void {
  switch (id) {
    case 'keywords:existence':
      for (const w of (kw.keywords as string[] | undefined) ?? []) plan.keywords.set(w, Math.max(plan.keywords.get(w) ?? 0, 1));
      break;
    case 'keywords:frequency':
    case 'keywords:word_count_different_numbers': {
      const word = s(kw.keyword, 'river');
      if (kw.relation === 'less than') plan.avoid.add(word);
      else plan.keywords.set(word, n(kw.frequency, 1));
      break;
    }
    case 'keywords:word_once':
      plan.keywords.set(s(kw.keyword, 'river'), 1);
      break;
    case 'count:count_increment_word':
      plan.keywords.set(s(kw.keyword1, 'river'), 1);
      plan.keywords.set(s(kw.keyword2, 'lake'), 2);
      break;
    case 'keywords:forbidden_words':
      for (const w of (kw.forbidden_words as string[] | undefined) ?? []) plan.avoid.add(w);
      break;
    case 'keywords:exclude_word_harder':
      plan.avoid.add(s(kw.keyword, ''));
      break;
    case 'keywords:letter_frequency':
    case 'letters:letter_counting2': {
      const letter = s(kw.letter, 'a').toLowerCase();
      if (kw.let_relation === 'less than') plan.avoidLetters.add(letter);
      else plan.letters.set(letter, n(kw.let_frequency, 1));
      break;
    }
    case 'letters:letter_counting':
      if (kw.relation === 'less than') plan.fewLetters = true;
      else plan.words.min = Math.max(plan.words.min, Math.ceil(n(kw.N, 3) / 3));
      break;
    case 'language:response_language':
      if (kw.language !== 'en') plan.language = s(kw.language, 'en');
      break;
    case 'length_constraints:number_sentences':
      bound(plan, 'sentences', kw.relation, n(kw.num_sentences, 1));
      break;
    case 'length_constraints:number_words':
      bound(plan, 'words', kw.relation, n(kw.num_words, 1));
      break;
    case 'length_constraints:number_paragraphs':
      plan.paragraphs = n(kw.num_paragraphs, 1);
      plan.separator = '\n***\n';
      break;
    case 'paragraphs:paragraphs':
      plan.paragraphs = 2;
      plan.separator = '\n***\n';
      break;
    case 'paragraphs:paragraphs2':
      plan.paragraphs = 2;
      break;
    case 'length_constraints:nth_paragraph_first_word':
      plan.paragraphs = n(kw.num_paragraphs, 1);
      plan.nthFirst = { n: n(kw.nth_paragraph, 1), word: s(kw.first_word, 'first').toLowerCase() };
      break;
    case 'detectable_format:multiple_sections':
      plan.sections = { splitter: s(kw.section_spliter, 'Section'), count: n(kw.num_sections, 1) };
      break;
    case 'detectable_content:number_placeholders':
      plan.placeholders = n(kw.num_placeholders, 1);
      break;
    case 'detectable_format:number_highlighted_sections':
      plan.highlights = n(kw.num_highlights, 1);
      break;
    case 'detectable_format:number_bullet_lists':
      plan.bullets = n(kw.num_bullets, 1);
      break;
    case 'detectable_format:title':
      plan.title = true;
      break;
    case 'detectable_content:postscript':
      plan.postscript = s(kw.postscript_marker, 'P.S.');
      break;
    case 'startend:end_checker':
      plan.endPhrase = s(kw.end_phrase, 'Any other questions?');
      break;
    case 'startend:quotation':
      plan.quote = true;
      break;
    case 'detectable_format:constrained_response':
      plan.constrained = true;
      break;
    case 'change_case:english_capital':
    case 'count:lowercase_counting':
      plan.caseStyle = 'upper';
      break;
    case 'change_case:english_lowercase':
      plan.caseStyle = 'lower';
      break;
    case 'change_case:capital_word_frequency':
      if (kw.capital_relation === 'less than') plan.noCapitalWords = true;
      else plan.capitalWords = n(kw.capital_frequency, 1);
      break;
    case 'punctuation:no_comma':
      plan.banned.add(',');
      break;
    case 'punctuation:punctuation_dot':
      plan.banned.add('.');
      break;
    case 'punctuation:punctuation_exclamation':
      plan.banned.add('!');
      break;
    case 'first_word:first_word_sent':
      plan.sentenceStart = s(kw.first_word, 'first');
      break;
    case 'first_word:first_word_answer':
      plan.firstWord = s(kw.first_word, 'first');
      break;
    case 'last_word:last_word_sent':
      plan.sentenceEnd = s(Array.isArray(kw.last_word) ? kw.last_word[0] : kw.last_word, 'last');
      break;
    case 'last_word:last_word_answer':
      plan.lastWord = s(kw.last_word, 'last');
      break;
    case 'keywords:palindrome':
      plan.palindrome = true;
      break;
    case 'count:count_unique':
      plan.uniqueWords = true;
      plan.sentences.max = Math.min(plan.sentences.max, 1);
      break;
    case 'keywords:no_adjacent_consecutive':
      plan.noAdjacentConsecutive = true;
      break;
    case 'keywords:start_end':
      plan.startEnd = true;
      break;
    case 'keywords:keyword_specific_position':
      plan.position = { keyword: s(kw.keyword, 'river'), n: n(kw.n, 1), m: n(kw.m, 1) };
      plan.sentences.min = Math.max(plan.sentences.min, plan.position.n);
      break;
    default:
      plan.shape = shapeFor(id, kw) ?? plan.shape;
  }
}

function shapeFor(id: string, kw: Kw): Shape | undefined {
  const prompt = typeof kw.prompt_to_repeat === 'string' ? kw.prompt_to_repeat : '';
  switch (id) {
    case 'copy:copy':
    case 'copy:copying_simple':
      return { kind: 'copy', text: prompt, times: 1 };
    case 'copy:copying_multiple':
      return { kind: 'copy', text: prompt, times: n(kw.N, 2) };
    case 'new:copy_span_idx':
      return { kind: 'copy', text: [...prompt].slice(n(kw.n_start, 0), n(kw.n_end, prompt.length)).join(''), times: 1 };
    case 'combination:repeat_prompt':
      return { kind: 'repeat_prompt', prompt };
    case 'copy:repeat_phrase':
      return { kind: 'repeat_phrase', phrase: s(kw.phrase, 'Time flies when having fun'), times: n(kw.small_n, 2) };
    case 'count:counting_composition':
      return { kind: 'composition', sentences: n(kw.n_sent, 2), words: n(kw.n_words, 3) };
    case 'detectable_format:json_format':
      return { kind: 'json' };
    case 'combination:two_responses':
      return { kind: 'two_responses' };
    case 'detectable_format:sentence_hyphens':
      return { kind: 'hyphens' };
    case 'detectable_format:square_brackets':
      return { kind: 'square_brackets' };
    case 'detectable_format:bigram_wrapping':
      return { kind: 'bigrams' };
    default:
      return undefined;
  }
}
