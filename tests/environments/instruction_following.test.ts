// instruction_following against NeMo Gym: the recorded rollouts (rewards and per-instruction
// verdicts), per-instruction edge cases with the verdicts the verifiable_instructions checkers give
// (computed by running them; Punkt set up with this port's abbreviation lists), grading modes, and
// the oracle on every instruction and on the example rows.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { instructionFollowing } from '../../src/environments/instruction_following';
import { buildCheck, follows, INSTRUCTIONS } from '../../src/environments/instruction_following/checkers/registry';
import { loadLanguageDetector } from '../../src/environments/instruction_following/text/language';
import type { InstructionFollowingTask } from '../../src/environments/instruction_following/task';
import { instructionFollowingOracle } from '../../src/environments/instruction_following/oracle';
import type { ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { verifyInChild } from './env_helpers';
import { answerResponse, FIXTURES, readJsonl } from './nemo_fixtures';

const DIR = path.join(FIXTURES, 'instruction_following');
const tasks = readJsonl(path.join(DIR, 'example.jsonl')).map((row) => instructionFollowing.taskSchema.parse(row));

type Result = {
  reward: number;
  follow_all_instructions: boolean;
  follow_instruction_list: boolean[];
  follow_instruction_list_loose: boolean[];
  reward_loose: number;
  failure_reason?: string;
};
// verify is synchronous once the language tables are loaded.
await loadLanguageDetector();
const verify = (task: InstructionFollowingTask, response: ResponseObject) => instructionFollowing.verify(task, response, { state: null }) as Result;
const taskOf = (ids: string[], kwargs: unknown[], extra: Record<string, unknown> = {}) =>
  instructionFollowing.taskSchema.parse({ id: 1, instruction_id_list: ids, kwargs, prompt: 'p', responses_create_params: { input: 'p' }, ...extra });

/** Recorded inputs add `type: "message"` to each item, so rollouts join to rows by role and content. */
const messagesKey = (input: unknown) => JSON.stringify((input as { role: string; content: unknown }[]).map((m) => [m.role, m.content]));

describe('instruction_following conformance with NeMo Gym recorded rollouts', () => {
  const rollouts = readJsonl<{ responses_create_params: { input: unknown }; response: ResponseObject; reward: number; follow_instruction_list: boolean[] }>(path.join(DIR, 'example_rollouts.jsonl'));
  it.each(rollouts.map((r, i) => [i, r] as const))('rollout %i reproduces reward and every instruction verdict', (_i, rollout) => {
    const task = tasks.find((t) => messagesKey(t.responses_create_params.input) === messagesKey(rollout.responses_create_params.input));
    expect(task).toBeDefined();
    const result = verify(task!, rollout.response);
    expect(result.reward).toBe(rollout.reward);
    expect(result.follow_instruction_list).toEqual(rollout.follow_instruction_list);
  });
});

// [name, instruction id, kwargs, answer, verdict of NeMo Gym's checker]
const EDGE_CASES: [string, string, Record<string, unknown> | null, string, boolean][] = [
  ['empty answer, forbidden words', 'keywords:forbidden_words', { forbidden_words: ['cat'] }, '', true],
  ['empty answer, at least one word', 'length_constraints:number_words', { num_words: 1, relation: 'at least' }, '', false],
  ['empty answer, title', 'detectable_format:title', null, '', false],
  ['empty answer, last word', 'last_word:last_word_answer', { last_word: 'end' }, '', false],
  ['empty answer, first word', 'first_word:first_word_answer', { first_word: 'start' }, '', false],
  ['empty answer, no comma', 'punctuation:no_comma', {}, '', true],
  ['unicode word boundary in lowercase counting', 'count:lowercase_counting', { N: 1 }, 'naïve café CRÈME', true],
  ['unicode words counted', 'length_constraints:number_words', { num_words: 4, relation: 'at least' }, '日本語 テキスト über naïve', true],
  ['forbidden word ignores case', 'keywords:forbidden_words', { forbidden_words: ['café'] }, 'We met at the CAFÉ.', false],
  ['forbidden word inside another word', 'keywords:forbidden_words', { forbidden_words: ['cat'] }, 'A category of concatenation.', true],
  ['keyword as a regex', 'keywords:existence', { keywords: ['colou?r'] }, 'What a color!', true],
  ['keyword frequency counts substrings', 'keywords:frequency', { keyword: 'art', frequency: 3, relation: 'at least' }, 'Art, start, smart.', true],
  ['letter frequency of a non-ASCII letter falls back to a random one', 'keywords:letter_frequency', { letter: 'é', let_frequency: 0, let_relation: 'at least' }, 'abc', true],
  ['paragraph dividers with extra whitespace', 'length_constraints:number_paragraphs', { num_paragraphs: 2 }, 'First part.\n\n  ***  \n\nSecond part.', true],
  ['empty paragraph between dividers', 'length_constraints:number_paragraphs', { num_paragraphs: 2 }, 'One *** *** Two', false],
  ['leading divider is ignored', 'paragraphs:paragraphs', null, '*** One *** Two', true],
  ['blank-line paragraphs', 'paragraphs:paragraphs2', null, 'One\n\nTwo\n\n', true],
  ['three blank lines make an empty middle paragraph', 'paragraphs:paragraphs2', null, 'One\n\n\n\nTwo', false],
  [
    'nth paragraph first word with quotes and punctuation',
    'length_constraints:nth_paragraph_first_word',
    { num_paragraphs: 2, nth_paragraph: 2, first_word: 'hello' },
    'Intro.\n\n"Hello, world" she said.',
    true,
  ],
  ['two identical responses', 'combination:two_responses', null, 'Same answer.\n******\nSame answer.', false],
  ['two different responses', 'combination:two_responses', null, 'First answer.\n******\nSecond answer.', true],
  ['three responses', 'combination:two_responses', null, 'A\n******\nB\n******\nC', false],
  ['json in a fence', 'detectable_format:json_format', null, '```json\n{"a": [1, 2]}\n```', true],
  ['json in an upper-case fence', 'detectable_format:json_format', null, '```JSON\n{"a": 1}\n```', true],
  ['json NaN literal', 'detectable_format:json_format', null, 'NaN', true],
  ['python dict is not json', 'detectable_format:json_format', null, "{'a': 1}", false],
  ['bullets with stars and dashes, bold is not a bullet', 'detectable_format:number_bullet_lists', { num_bullets: 3 }, 'Intro\n* one\n- two\n  * three\n**Bold line**\n', true],
  ['highlights single and double', 'detectable_format:number_highlighted_sections', { num_highlights: 3 }, '*one* and **two** and * * and *three*', true],
  ['postscript lower case', 'detectable_content:postscript', { postscript_marker: 'P.S.' }, 'Body text.\np.s. remember this', true],
  ['postscript P.P.S', 'detectable_content:postscript', { postscript_marker: 'P.P.S' }, 'Body.\nP.P.S. one more', true],
  ['sections', 'detectable_format:multiple_sections', { section_spliter: 'SECTION', num_sections: 2 }, 'SECTION 1\nfoo\nSECTION 2\nbar', true],
  ['sections with a different splitter case', 'detectable_format:multiple_sections', { section_spliter: 'Section', num_sections: 2 }, 'SECTION 1\nfoo\nSECTION 2\nbar', false],
  ['constrained response', 'detectable_format:constrained_response', null, '  My answer is maybe.  ', true],
  ['end phrase with quotes and spaces', 'startend:end_checker', { end_phrase: 'Any other questions?' }, '"Here it is. Any other questions?"   ', true],
  ['quotation', 'startend:quotation', null, '  "wrapped"  ', true],
  ['single quote character', 'startend:quotation', null, '"', false],
  [
    'repeat phrase with one word changed each time',
    'copy:repeat_phrase',
    { phrase: 'The early bird catches the worm', small_n: 2 },
    'The early cat catches the worm. The early dog catches the worm.',
    true,
  ],
  ['repeat phrase unchanged', 'copy:repeat_phrase', { phrase: 'The early bird catches the worm', small_n: 2 }, 'The early bird catches the worm. The early bird catches the worm.', false],
  ['copy span with a negative end', 'new:copy_span_idx', { prompt_to_repeat: 'Hello brave new world', n_start: 6, n_end: -6 }, 'brave new', true],
  ['copying multiple', 'copy:copying_multiple', { prompt_to_repeat: 'Say hi.', N: 2 }, 'say hi.\n******\n SAY HI. ', true],
  ['repeat prompt then answer', 'combination:repeat_prompt', { prompt_to_repeat: 'Write a haiku.' }, 'write a haiku. Leaves fall...', true],
  ['repeat prompt without the prompt', 'combination:repeat_prompt', {}, 'anything', false],
  ['unknown instruction id', 'keywords:no_such_checker', {}, 'anything', false],
  ['unexpected kwarg', 'punctuation:no_comma', { num_words: 5 }, 'no commas here', false],
  ['None kwargs are dropped', 'punctuation:no_comma', { num_words: null }, 'no commas here', true],
  ['invalid relation', 'length_constraints:number_words', { num_words: 3, relation: 'at most' }, 'one two', false],
  ['english capital', 'change_case:english_capital', null, 'THIS IS A LONG ENGLISH SENTENCE ABOUT THE WEATHER TODAY.', true],
  ['english capital with a lower-case word', 'change_case:english_capital', null, 'THIS IS A LONG ENGLISH SENTENCE ABOUT the WEATHER TODAY.', false],
  ['english lowercase', 'change_case:english_lowercase', null, 'this is a long english sentence about the weather today.', true],
  ['lowercase check on digits only', 'change_case:english_lowercase', null, '12345', false],
  ['response language french', 'language:response_language', { language: 'fr' }, "Bonjour, je voudrais vous expliquer comment fonctionne ce système aujourd'hui.", true],
  ['response language mismatch', 'language:response_language', { language: 'de' }, 'This answer is written entirely in the English language, sadly.', false],
  ['response language of punctuation only', 'language:response_language', { language: 'de' }, '123 !!! ...', true],
  ['unsupported language code', 'language:response_language', { language: 'xx' }, 'anything', false],
  ['capital words', 'change_case:capital_word_frequency', { capital_frequency: 2, capital_relation: 'at least' }, 'The NASA and ESA teams met.', true],
  ['unique words', 'count:count_unique', null, 'every word here differs', true],
  ['repeated punctuation token', 'count:count_unique', null, 'One thing. Another thing.', false],
  ['start and end with the same word', 'keywords:start_end', null, 'Hello there my friend hello', true],
  ['start and end with a trailing period', 'keywords:start_end', null, 'Hello there my friend hello.', false],
  ['keyword at a position', 'keywords:keyword_specific_position', { keyword: 'blue', n: 2, m: 3 }, 'First sentence here. The sky blue today.', true],
  ['sentence count at least', 'length_constraints:number_sentences', { num_sentences: 3, relation: 'at least' }, 'One is here. Two is there! Three is everywhere?', true],
  ['sentence count ignores newlines', 'length_constraints:number_sentences', { num_sentences: 2, relation: 'at least' }, '* item one\n* item two\n* item three', false],
  ['sentence hyphens', 'detectable_format:sentence_hyphens', null, 'Hello there.-Good bye.', true],
  ['sentence hyphens with spaces', 'detectable_format:sentence_hyphens', null, 'Hello there. - Good bye.', false],
  ['square brackets', 'detectable_format:square_brackets', null, '[every] [word] [wrapped]', true],
  ['bigram wrapping', 'detectable_format:bigram_wrapping', null, '<<I am>> <<at home>> alone', true],
  ['adjacent consecutive letters', 'keywords:no_adjacent_consecutive', null, 'a big cat', false],
  ['no adjacent consecutive letters', 'keywords:no_adjacent_consecutive', null, 'a cat eats', true],
  ['palindrome', 'keywords:palindrome', null, 'Madam said level', true],
  ['letter counting less than', 'letters:letter_counting', { N: 5, relation: 'less than' }, 'ab 12 éé', true],
  ['count increment word', 'count:count_increment_word', { keyword1: 'cat', keyword2: 'dog' }, 'A cat, a dog, another dog.', true],
  ['count increment word without keywords', 'count:count_increment_word', {}, 'cat dog dog', false],
  ['exclude word harder', 'keywords:exclude_word_harder', { keyword: 'the' }, 'the end', true],
  ['exclude word harder in the middle', 'keywords:exclude_word_harder', { keyword: 'the' }, 'at the end', false],
  ['first word of each sentence', 'first_word:first_word_sent', { first_word: 'So' }, 'So it begins. so it ends!', true],
  ['last word of each sentence', 'last_word:last_word_sent', { last_word: 'today' }, 'It is sunny today. Rain comes TODAY!', true],
  ['last word of the answer with punctuation', 'last_word:last_word_answer', { last_word: 'contest' }, 'We won the contest!!!', true],
  ['word once', 'keywords:word_once', { keyword: 'river' }, 'The river and the riverbank.', false],
  ['placeholders', 'detectable_content:number_placeholders', { num_placeholders: 2 }, 'Dear [name],\nat [address] and [ ]', true],
  ['counting composition', 'count:counting_composition', { n_sent: 1, n_words: 3 }, 'Cats sleep.\n***\nDogs bark.\n***\nBirds sing.', true],
];

describe('instruction checkers', () => {
  it.each(EDGE_CASES)('%s', (_name, id, kwargs, text, expected) => {
    expect(follows(buildCheck(id, kwargs), text)).toBe(expected);
  });

  it("covers every instruction id of NeMo Gym's registry", () => {
    expect(Object.keys(INSTRUCTIONS)).toHaveLength(54);
  });
});

describe('instruction_following grading', () => {
  const ids = ['punctuation:no_comma', 'detectable_format:title'];
  const answer = answerResponse('No title, but a comma.');

  it('binary grading needs every instruction and names the failed ones', () => {
    const result = verify(taskOf(ids, [{}, null]), answer);
    expect(result.reward).toBe(0);
    expect(result.follow_instruction_list).toEqual([false, false]);
    expect(result.failure_reason).toBe('instructions not followed: punctuation:no_comma, detectable_format:title');
  });

  it('fraction grading scores the share followed', () => {
    const result = verify(taskOf(ids, [{}, null], { grading_mode: 'fraction' }), answerResponse('<<Title>> no commas here'));
    expect(result.reward).toBe(1);
    expect(verify(taskOf(ids, [{}, null], { grading_mode: 'fraction' }), answerResponse('<<Title>>, comma')).reward).toBe(0.5);
  });

  it('an empty instruction list passes in binary mode and scores 0 in fraction mode', () => {
    expect(verify(taskOf([], []), answer).reward).toBe(1);
    expect(verify(taskOf([], [], { grading_mode: 'fraction' }), answer).reward).toBe(0);
  });

  it('grades only the first content part of the last output item', () => {
    const response = answerResponse('<<Title>> no commas');
    response.output.unshift({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'early, draft' }] });
    expect(verify(taskOf(ids, [{}, null]), response).reward).toBe(1);
    response.output.push({ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' });
    expect(verify(taskOf(ids, [{}, null]), response).follow_instruction_list).toEqual([true, false]);
  });

  it('extra ids beyond the kwargs list are ignored, as zip() does', () => {
    expect(verify(taskOf(ids, [{}]), answerResponse('no commas')).follow_instruction_list).toEqual([true]);
  });

  it('nested verifier_metadata wins over legacy top-level fields', () => {
    const task = taskOf(['punctuation:no_comma'], [{}], { verifier_metadata: { instruction_id_list: ['detectable_format:title'], kwargs: [null] } });
    expect(verify(task, answerResponse('<<T>>, with comma')).reward).toBe(1);
  });

  it('rejects rows missing the verifier fields or with an unknown grading mode', () => {
    expect(instructionFollowing.taskSchema.safeParse({ id: 1, responses_create_params: { input: 'p' }, prompt: 'p', kwargs: [] }).success).toBe(false);
    expect(instructionFollowing.taskSchema.safeParse({ id: 1, responses_create_params: { input: 'p' }, prompt: 'p', kwargs: [], instruction_id_list: [], grading_mode: 'mean' }).success).toBe(false);
  });

  it('loose verdicts forgive markdown asterisks and a first or last line', () => {
    const task = taskOf(['keywords:start_end'], [null]);
    const result = verify(task, answerResponse('Sure, here it is:\nHello world hello\n(end)'));
    expect(result.follow_instruction_list).toEqual([false]);
    expect(result.follow_instruction_list_loose).toEqual([true]);
    expect(result.reward_loose).toBe(1);
  });
});

// [instruction id, kwargs]: one row per instruction (both relations where there are two).
const SINGLE: [string, Record<string, unknown>][] = [
  ['keywords:existence', { keywords: ['planet', 'orbit'] }],
  ['keywords:frequency', { keyword: 'river', frequency: 3, relation: 'at least' }],
  ['keywords:frequency', { keyword: 'river', frequency: 2, relation: 'less than' }],
  ['keywords:forbidden_words', { forbidden_words: ['good', 'simple'] }],
  ['keywords:letter_frequency', { letter: 'z', let_frequency: 4, let_relation: 'at least' }],
  ['keywords:letter_frequency', { letter: 'e', let_frequency: 3, let_relation: 'less than' }],
  ['language:response_language', { language: 'fr' }],
  ['language:response_language', { language: 'en' }],
  ['length_constraints:number_sentences', { num_sentences: 7, relation: 'at least' }],
  ['length_constraints:number_sentences', { num_sentences: 3, relation: 'less than' }],
  ['length_constraints:number_paragraphs', { num_paragraphs: 4 }],
  ['length_constraints:number_words', { num_words: 300, relation: 'at least' }],
  ['length_constraints:number_words', { num_words: 20, relation: 'less than' }],
  ['length_constraints:nth_paragraph_first_word', { num_paragraphs: 3, nth_paragraph: 2, first_word: 'because' }],
  ['detectable_content:number_placeholders', { num_placeholders: 3 }],
  ['detectable_content:postscript', { postscript_marker: 'P.P.S' }],
  ['detectable_content:postscript', { postscript_marker: 'P.S.' }],
  ['detectable_format:number_bullet_lists', { num_bullets: 4 }],
  ['detectable_format:constrained_response', {}],
  ['detectable_format:number_highlighted_sections', { num_highlights: 3 }],
  ['detectable_format:multiple_sections', { section_spliter: 'SECTION', num_sections: 3 }],
  ['detectable_format:json_format', {}],
  ['detectable_format:title', {}],
  ['combination:two_responses', {}],
  ['combination:repeat_prompt', { prompt_to_repeat: 'Write a poem about the sea.' }],
  ['startend:end_checker', { end_phrase: 'Is there anything else I can help with?' }],
  ['change_case:capital_word_frequency', { capital_frequency: 5, capital_relation: 'at least' }],
  ['change_case:capital_word_frequency', { capital_frequency: 2, capital_relation: 'less than' }],
  ['change_case:english_capital', {}],
  ['change_case:english_lowercase', {}],
  ['punctuation:no_comma', {}],
  ['startend:quotation', {}],
  ['copy:repeat_phrase', { phrase: 'The early bird catches the worm', small_n: 3 }],
  ['copy:copy', { prompt_to_repeat: 'Copy me please.' }],
  ['new:copy_span_idx', { prompt_to_repeat: 'Copy only part of this sentence.', n_start: 5, n_end: 14 }],
  ['detectable_format:sentence_hyphens', {}],
  ['keywords:no_adjacent_consecutive', {}],
  ['detectable_format:square_brackets', {}],
  ['keywords:word_once', { keyword: 'lantern' }],
  ['keywords:word_count_different_numbers', { keyword: 'sky', frequency: 2, relation: 'at least' }],
  ['keywords:exclude_word_harder', { keyword: 'the' }],
  ['paragraphs:paragraphs', {}],
  ['paragraphs:paragraphs2', {}],
  ['first_word:first_word_sent', { first_word: 'indeed' }],
  ['first_word:first_word_answer', { first_word: 'sure' }],
  ['last_word:last_word_sent', { last_word: 'today' }],
  ['last_word:last_word_answer', { last_word: 'contest' }],
  ['detectable_format:bigram_wrapping', {}],
  ['copy:copying_simple', { prompt_to_repeat: 'Say this back.' }],
  ['copy:copying_multiple', { prompt_to_repeat: 'Say this back.', N: 3 }],
  ['punctuation:punctuation_dot', {}],
  ['punctuation:punctuation_exclamation', {}],
  ['count:lowercase_counting', { N: 3 }],
  ['letters:letter_counting', { N: 50, relation: 'at least' }],
  ['letters:letter_counting', { N: 3, relation: 'less than' }],
  ['letters:letter_counting2', { letter: 'q', let_frequency: 2, let_relation: 'at least' }],
  ['count:counting_composition', { n_sent: 2, n_words: 4 }],
  ['count:count_unique', {}],
  ['count:count_increment_word', { keyword1: 'apple', keyword2: 'pear' }],
  ['keywords:palindrome', {}],
  ['keywords:keyword_specific_position', { keyword: 'ocean', n: 2, m: 3 }],
  ['keywords:start_end', {}],
];

describe('instruction_following oracle', () => {
  const play = (task: InstructionFollowingTask, correct: boolean) => verify(task, { id: 'oracle', output: instructionFollowingOracle(task, [], { correct, rng: seededRng(11) }) }).reward;

  it.each(SINGLE)('%s %j', (id, kwargs) => {
    const task = taskOf([id], [kwargs]);
    expect(play(task, true)).toBe(1);
    expect(play(task, false)).toBe(0);
  });

  it.each(tasks.map((t) => [t.id, t] as const))('example row %i', (_id, task) => {
    expect(play(task, true)).toBe(1);
    expect(play(task, false)).toBe(0);
  });
});

describe('instruction_following patterns spliced from a row', () => {
  const row = (id: string, kwargs: Record<string, unknown>) => ({ id: 1, instruction_id_list: [id], kwargs: [kwargs], prompt: 'p', responses_create_params: { input: 'p' } });
  const nested = '(?:[a-z]+\\s*)+!';
  const text = 'a long answer with many plain words and no bang at all '.repeat(40);

  it('a catastrophically backtracking keyword, phrase, splitter or marker fails verify with REGEX_TIMEOUT, not "not followed"', async () => {
    const outcomes = await verifyInChild([
      { env: 'instruction_following', task: row('keywords:existence', { keywords: [nested] }), text },
      { env: 'instruction_following', task: row('copy:repeat_phrase', { phrase: `${nested} x`, small_n: 2 }), text },
      { env: 'instruction_following', task: row('detectable_format:multiple_sections', { section_spliter: nested, num_sections: 2 }), text },
      { env: 'instruction_following', task: row('detectable_content:postscript', { postscript_marker: nested }), text },
      { env: 'instruction_following', task: row('keywords:existence', { keywords: ['plain'] }), text },
    ]);
    expect(outcomes.slice(0, 4).map((o) => o.error?.code)).toEqual(['REGEX_TIMEOUT', 'REGEX_TIMEOUT', 'REGEX_TIMEOUT', 'REGEX_TIMEOUT']);
    expect(outcomes[4]).toMatchObject({ reward: 1 });
    expect(outcomes[4]!.ticks).toBeGreaterThan(outcomes[0]!.ticks);
  });
});
