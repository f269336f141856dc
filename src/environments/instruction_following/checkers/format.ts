// Format instructions: markdown bullets, highlights, sections, titles, placeholders, JSON, quoting,
// fixed endings and postscripts, answer options, and punctuation bans.
import { pySplit, pyStrip } from '../../../python/str';
import { jsonLoads } from '../../../python/json';
import { pyCount, pyRegExp, pySearch } from '../../../python/regex';
import { splitWithDeadline } from '../../../python/regex-deadline';
import { splitIntoSentences } from '../text/sentences';
import { countOr, str, type Check, type Instruction } from './types';

/** An instruction without kwargs: Python's build_description() takes none, so any kwarg raises. */
const fixed = (check: Check): Instruction => ({ params: [], build: () => check });

const numberPlaceholders: Instruction = {
  params: ['num_placeholders'],
  build({ num_placeholders }, rng) {
    const least = countOr(num_placeholders, rng, 1, 4);
    return (text) => pyCount('\\[.*?\\]', text) >= least;
  },
};

const POSTSCRIPT_MARKERS = ['P.S.', 'P.P.S'];

const postscript: Instruction = {
  params: ['postscript_marker'],
  build({ postscript_marker }, rng) {
    const marker = postscript_marker === undefined ? rng.pick(POSTSCRIPT_MARKERS) : pyStrip(str(postscript_marker));
    const pattern = marker === 'P.P.S' ? '\\s*p\\.\\s?p\\.\\s?s.*$' : marker === 'P.S.' ? '\\s*p\\.\\s?s\\..*$' : `\\s*${marker.toLowerCase()}.*$`;
    // A row's marker is spliced in unescaped, so the pattern matches under the regex deadline.
    return (text) => pySearch(pattern, text.toLowerCase(), 'm', { guarded: true });
  },
};

const numberBulletLists: Instruction = {
  params: ['num_bullets'],
  build({ num_bullets }, rng) {
    const wanted = countOr(num_bullets, rng, 1, 5);
    return (text) => pyCount('^\\s*\\*[^\\*].*$', text, 'm') + pyCount('^\\s*-.*$', text, 'm') === wanted;
  },
};

const CONSTRAINED_OPTIONS = ['My answer is yes.', 'My answer is no.', 'My answer is maybe.'];

const HIGHLIGHT = pyRegExp('\\*[^\\n\\*]*\\*');
const DOUBLE_HIGHLIGHT = pyRegExp('\\*\\*[^\\n\\*]*\\*\\*');

const highlightedSections: Instruction = {
  params: ['num_highlights'],
  build({ num_highlights }, rng) {
    const least = countOr(num_highlights, rng, 1, 4);
    return (text) => {
      const single = [...text.matchAll(HIGHLIGHT)].filter((m) => pyStrip(m[0].replace(/^\*+|\*+$/g, '')) !== '').length;
      const double = [...text.matchAll(DOUBLE_HIGHLIGHT)].filter((m) => pyStrip(m[0].slice(2, -2)) !== '').length;
      return single + double >= least;
    };
  },
};

const SECTION_SPLITTERS = ['Section', 'SECTION'];

const multipleSections: Instruction = {
  params: ['section_spliter', 'num_sections'],
  build({ section_spliter, num_sections }, rng) {
    const splitter = section_spliter === undefined ? rng.pick(SECTION_SPLITTERS) : pyStrip(str(section_spliter));
    const least = countOr(num_sections, rng, 1, 5);
    // The row's splitter is spliced in unescaped, so the pattern splits under the regex deadline.
    const source = `\\s?${splitter}\\s?\\d+\\s?`;
    const pattern = pyRegExp(source);
    return (text) => splitWithDeadline(pattern, text, source).length - 1 >= least;
  },
};

const jsonFormat = fixed((text) => {
  let body = pyStrip(text);
  for (const prefix of ['```json', '```Json', '```JSON', '```']) if (body.startsWith(prefix)) body = body.slice(prefix.length);
  if (body.endsWith('```')) body = body.slice(0, -3);
  try {
    jsonLoads(pyStrip(body));
    return true;
  } catch {
    return false;
  }
});

const TITLE = pyRegExp('<<[^\\n]+>>');

const title = fixed((text) => [...text.matchAll(TITLE)].some((m) => pyStrip(m[0].replace(/^<+/, '').replace(/>+$/, '')) !== ''));

const twoResponses = fixed((text) => {
  const parts = text.split('******');
  const valid: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (pyStrip(parts[i]!) !== '') valid.push(parts[i]!);
    else if (i !== 0 && i !== parts.length - 1) return false;
  }
  return valid.length === 2 && pyStrip(valid[0]!) !== pyStrip(valid[1]!);
});

const ENDINGS = ['Any other questions?', 'Is there anything else I can help with?'];

const endChecker: Instruction = {
  params: ['end_phrase'],
  build({ end_phrase }, rng) {
    const phrase = end_phrase === undefined ? rng.pick(ENDINGS) : str(end_phrase);
    return (text) => pyStrip(pyStrip(text), '"').toLowerCase().endsWith(pyStrip(phrase).toLowerCase());
  },
};

const quotation = fixed((text) => {
  const body = pyStrip(text);
  return [...body].length > 1 && body.startsWith('"') && body.endsWith('"');
});

const sentenceHyphens = fixed((text) => {
  const gold = splitIntoSentences(text.replaceAll('-', ' '));
  const pieces = text.split('-');
  for (let i = 0; i < Math.min(gold.length, pieces.length); i++) {
    const piece = pieces[i]!;
    if (pyStrip(piece) !== piece || piece !== gold[i]) return false;
  }
  return true;
});

const squareBrackets = fixed((text) => pySplit(text).every((w) => w.startsWith('[') && w.endsWith(']')));

const bigramWrapping = fixed((text) => {
  const words = pySplit(text);
  for (let i = 0; i + 1 < words.length; i += 2) if (!(words[i]!.startsWith('<<') && words[i + 1]!.endsWith('>>'))) return false;
  return true;
});

export const FORMAT_INSTRUCTIONS: Record<string, Instruction> = {
  'detectable_content:number_placeholders': numberPlaceholders,
  'detectable_content:postscript': postscript,
  'detectable_format:number_bullet_lists': numberBulletLists,
  'detectable_format:constrained_response': fixed((text) => CONSTRAINED_OPTIONS.some((o) => pyStrip(text).includes(o))),
  'detectable_format:number_highlighted_sections': highlightedSections,
  'detectable_format:multiple_sections': multipleSections,
  'detectable_format:json_format': jsonFormat,
  'detectable_format:title': title,
  'combination:two_responses': twoResponses,
  'startend:end_checker': endChecker,
  'startend:quotation': quotation,
  'detectable_format:sentence_hyphens': sentenceHyphens,
  'detectable_format:square_brackets': squareBrackets,
  'detectable_format:bigram_wrapping': bigramWrapping,
  'punctuation:no_comma': fixed((text) => !text.includes(',')),
  'punctuation:punctuation_dot': fixed((text) => !text.includes('.')),
  'punctuation:punctuation_exclamation': fixed((text) => !text.includes('!')),
};
