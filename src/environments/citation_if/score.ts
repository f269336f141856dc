// NeMo Gym's citation_if gates, in order. Cite mode: a non-empty answer and no tool call (0), some
// answer besides citation markup (0b), every ID-shaped token inside a well-formed citation and tag
// counts balanced (1), enough valid citations (2), no invented IDs (3), and the expected IDs cited
// without over-citing (4). No-cite mode: no citation of any shape. Answer content is never graded.
import { matchAllWithDeadline } from '../../python/regex-deadline';
import { PY_WORD_CLASS, pyStrip } from '../../python/str';
import { ATTEMPT, citationPattern, DEFAULT_ID_REGEX, GRAMMARS, type Grammar } from './grammars';
import type { Verifier } from './task';

export interface MatchDetails {
  gate_failed: string | null;
  mode: string;
  grammar: string;
  id_kind: string;
  id_regex: string;
  structural_ok: boolean;
  function_call_count: number;
  attempt_hits: boolean;
  bare_id_hits: boolean;
  parsed_ids: string[];
  cited_ids: string[];
  valid_cited: string[];
  invalid_cited: string[];
  num_valid_cited: number;
  expected_ids: string[] | null;
  missed_ids: string[];
  over_cap: boolean;
}

const WORD_CHAR = new RegExp(`[${PY_WORD_CLASS}]`, 'u');

/**
 * Well-formed citations; a claim wrap with a blank claim is not one. The pattern holds the row's
 * id_regex, so it matches under the regex deadline.
 */
function citationSpans(grammar: Grammar, idRegex: string, text: string): RegExpExecArray[] {
  return matchAllWithDeadline(citationPattern(grammar, idRegex), text, idRegex).filter((m) => grammar.claimGroup === undefined || pyStrip(m[grammar.claimGroup] ?? '') !== '');
}

/** The text with each span blanked out, except (given `keepClaim`) the claim inside a claim wrap. */
function blankSpans(spans: readonly RegExpExecArray[], text: string, keepClaim?: number): string {
  const chars = text.split('');
  for (const m of spans) {
    const keep = keepClaim !== undefined ? m.indices?.[keepClaim] : undefined;
    for (let i = m.index; i < m.index + m[0].length; i++) if (!keep || i < keep[0] || i >= keep[1]) chars[i] = ' ';
  }
  return chars.join('');
}

function tagsBalanced(grammar: Grammar, text: string, spans: number): boolean {
  if (!grammar.openTag || !grammar.closeTag) return true;
  return count(grammar.openTag, text) === spans && spans === count(grammar.closeTag, text);
}

const count = (re: RegExp, text: string) => [...text.matchAll(re)].length;
const found = (re: RegExp, text: string) => {
  re.lastIndex = 0;
  return re.test(text);
};

export function scoreCitations(text: string, functionCallCount: number, verifier: Verifier): { reward: number; details: MatchDetails | { gate_failed: string; grammar: string } } {
  const grammarName = verifier.grammar ?? '';
  const grammar = Object.hasOwn(GRAMMARS, grammarName) ? GRAMMARS[grammarName] : undefined;
  if (!grammar) return { reward: 0, details: { gate_failed: 'unknown_grammar', grammar: grammarName } };
  const idKind = verifier.id_kind ?? 'full_source';
  const idRegex = verifier.id_regex || DEFAULT_ID_REGEX[idKind] || DEFAULT_ID_REGEX.full_source!;
  const mode = verifier.mode ?? 'cite';
  const valid = new Set(verifier.valid_id_set ?? []);
  const expected = verifier.expected_ids ?? null;
  const structuralOk = pyStrip(text) !== '' && functionCallCount === 0;

  const spans = structuralOk ? citationSpans(grammar, idRegex, text) : [];
  const parsed = [...new Set(spans.flatMap((m) => m[1]!.split(',')))];
  const validCited = parsed.filter((id) => valid.has(id));
  const invalidCited = parsed.filter((id) => !valid.has(id));
  const attemptHits = structuralOk && found(ATTEMPT, text);
  const details = (gate: string | null, extra: Partial<MatchDetails> = {}): MatchDetails => ({
    gate_failed: gate,
    mode,
    grammar: grammarName,
    id_kind: idKind,
    id_regex: idRegex,
    structural_ok: structuralOk,
    function_call_count: functionCallCount,
    attempt_hits: attemptHits,
    bare_id_hits: attemptHits,
    parsed_ids: parsed,
    cited_ids: validCited,
    valid_cited: validCited,
    invalid_cited: invalidCited,
    num_valid_cited: validCited.length,
    expected_ids: null,
    missed_ids: [],
    over_cap: false,
    ...extra,
  });
  const fail = (gate: string, extra?: Partial<MatchDetails>) => ({ reward: 0, details: details(gate, extra) });

  if (!structuralOk) return fail('structural');
  if (mode === 'no_cite') {
    const markup = spans.length > 0 || (grammar.openTag !== undefined && found(grammar.openTag, text));
    return attemptHits || markup ? fail('no_cite') : { reward: 1, details: details(null) };
  }
  if (!WORD_CHAR.test(blankSpans(spans, text, grammar.claimGroup))) return fail('no_answer');
  if (found(ATTEMPT, blankSpans(spans, text)) || !tagsBalanced(grammar, text, spans.length)) return fail('malformed_attempt');
  if (validCited.length < (verifier.min_valid_citations ?? 1)) return fail('must_cite');
  if (invalidCited.length > 0) return fail('no_hallucination');
  let missed: string[] = [];
  let overCap = false;
  if (expected !== null) {
    const expectedSet = new Set(expected);
    missed = [...expectedSet].filter((id) => !validCited.includes(id)).sort();
    overCap = validCited.length > expectedSet.size + (verifier.expected_slack ?? 1);
    const extra = { expected_ids: [...expected], missed_ids: missed, over_cap: overCap };
    if (missed.length > 0) return fail('correctness_missed_gold', extra);
    if (overCap) return fail('correctness_over_cap', extra);
  }
  return { reward: 1, details: details(null, { expected_ids: expected && [...expected], missed_ids: missed, over_cap: overCap }) };
}
