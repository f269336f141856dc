// The citation grammars NeMo Gym's citation_if recognises. Each is a pattern around the row's ID
// pattern: group 1 holds the cited ID(s) (a comma-separated list for multi-ID grammars), and the
// claim-wrapping grammar's group 2 holds the claim. Tag grammars also count open and close tags.
import { pyRegExp } from '../../python/regex';

export interface Grammar {
  template: string;
  multi: boolean;
  dotall?: boolean;
  claimGroup?: number;
  openTag?: RegExp;
  closeTag?: RegExp;
  /** How a citation of `ids` is written (for the oracle). */
  render(ids: string, claim: string): string;
}

const CITE_OPEN = pyRegExp('<cite\\b', 'i');
const CITE_CLOSE = pyRegExp('</cite\\s*>', 'i');

export const GRAMMARS: Readonly<Record<string, Grammar>> = {
  cite_xml: { template: '<cite>({IDS})</cite>', multi: true, openTag: CITE_OPEN, closeTag: CITE_CLOSE, render: (ids) => `<cite>${ids}</cite>` },
  // A "(" right after the bracket is a markdown link, not a citation.
  ascii_brackets: { template: '\\[({IDS})\\](?!\\()', multi: false, render: (ids) => `[${ids}]` },
  claim_wrap_xml: {
    template: '<cite index="({IDS})">(.*?)</cite>',
    multi: true,
    dotall: true,
    claimGroup: 2,
    openTag: CITE_OPEN,
    closeTag: CITE_CLOSE,
    render: (ids, claim) => `<cite index="${ids}">${claim}</cite>`,
  },
  // U+3010/U+3011, the lenticular brackets citation evaluators match.
  fullwidth_brackets: { template: '【({IDS})】', multi: false, render: (ids) => `【${ids}】` },
  ref_colon: { template: '\\[ref:({IDS})\\]', multi: false, render: (ids) => `[ref:${ids}]` },
  double_angle: { template: '<<({IDS})>>', multi: false, render: (ids) => `<<${ids}>>` },
  web_brackets: { template: '\\[web:({IDS})\\]', multi: false, render: (ids) => `[web:${ids}]` },
  paren_part: { template: '\\(({IDS})\\)', multi: false, render: (ids) => `(${ids})` },
  markdown_footnote: { template: '\\[\\^({IDS})\\]', multi: false, render: (ids) => `[^${ids}]` },
  // Holdout grammars: kept out of training rows to test whether a model generalises.
  curly_double: { template: '\\{\\{({IDS})\\}\\}', multi: false, render: (ids) => `{{${ids}}}` },
  angle_pipe: { template: '<ref\\|({IDS})>', multi: false, render: (ids) => `<ref|${ids}>` },
};

/** The grammar's citation pattern for one row's ID scheme. */
export function citationPattern(grammar: Grammar, idRegex: string): RegExp {
  const ids = grammar.multi ? `(?:${idRegex})(?:,(?:${idRegex}))*` : `(?:${idRegex})`;
  return pyRegExp(grammar.template.replace('{IDS}', ids), grammar.dotall ? 's' : '', { indices: true });
}

/** Any ID-shaped token: wider than every row's ID scheme on purpose, to catch leaked or malformed IDs. */
export const ATTEMPT = pyRegExp('citation_[A-Za-z0-9_:]+', 'i');

/** Used when a row gives no `id_regex`. */
export const DEFAULT_ID_REGEX: Readonly<Record<string, string>> = {
  full_source: 'citation_[0-9]+',
  snippet: 'citation_[0-9]+:snippet_[0-9]+',
};

/** Appears in instruction examples only and is never a valid ID, so echoing the example fails. */
export const RESERVED_EXAMPLE_ID = 'citation_xmpl';

export const TERMINAL_TOOL_RESPONSE = 'No further tool results are available. Provide your final answer.';
