// The mock policy's player for citation_if: a correct answer is a sentence citing exactly the
// expected IDs (or enough valid ones) in the row's grammar, or citing nothing in no_cite mode; a
// wrong answer cites the reserved example ID (or, in no_cite mode, a real one).
import type { ConversationItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import { GRAMMARS, RESERVED_EXAMPLE_ID } from './grammars';
import type { CitationIfTask } from './task';

const CLAIM = 'The retrieved pages answer this question directly';

export const citationIfOracle: Oracle<CitationIfTask> = (task, _history, { correct }): ConversationItem[] => {
  const v = task.verifier;
  const grammar = GRAMMARS[v.grammar ?? ''] ?? GRAMMARS.ascii_brackets!;
  const cite = (ids: readonly string[]) => ids.map((id) => grammar.render(id, CLAIM)).join(' ');
  const valid = v.valid_id_set ?? [];
  if (v.mode === 'no_cite') return [assistantMessage(correct ? `${CLAIM}.` : `${CLAIM}. ${cite([valid[0] ?? RESERVED_EXAMPLE_ID])}`)];
  const ids = correct ? (v.expected_ids ?? valid.slice(0, v.min_valid_citations ?? 1)) : [RESERVED_EXAMPLE_ID];
  return [assistantMessage(`${CLAIM}. ${cite(ids)}`)];
};
