// citation_if against NeMo Gym: the recorded example rollouts (rewards and match_details), the gate
// edge cases with the verdicts NeMo Gym's scorer.py gives (computed by running it), and the oracle.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { citationIf } from '../../src/environments/citation_if';
import type { CitationIfTask } from '../../src/environments/citation_if/task';
import { citationIfOracle } from '../../src/environments/citation_if/oracle';
import { seededRng } from '../../src/util/rng';
import { verifyInChild } from './env_helpers';
import { answerResponse, readJsonl } from './nemo_fixtures';

const DATA = path.resolve(import.meta.dirname, '../../src/environments/citation_if/data');
const rows = readJsonl<{ verifier: Record<string, unknown> }>(path.join(DATA, 'example.jsonl'));
const tasks = rows.map((row) => citationIf.taskSchema.parse(row));
const rollouts = readJsonl<{ _ng_task_index: number; response: never; reward: number; match_details: unknown }>(path.join(DATA, 'example_rollouts.jsonl'));
const verify = (task: CitationIfTask, response: Parameters<typeof citationIf.verify>[1]) =>
  citationIf.verify(task, response, { state: null }) as { reward: number; match_details: { gate_failed: string | null }; failure_reason?: string };

describe('citation_if conformance with NeMo Gym recorded rollouts', () => {
  it.each(rollouts.map((r, i) => [i, r] as const))('rollout %i reproduces reward and match_details', (_i, rollout) => {
    const result = verify(tasks[rollout._ng_task_index]!, rollout.response);
    expect(result.reward).toBe(rollout.reward);
    expect(result.match_details).toEqual(rollout.match_details);
  });
});

interface Case {
  name: string;
  grammar: string;
  text: string;
  toolCalls: number;
  reward: number;
  gate: string | null;
  mode?: string;
  id_kind?: string;
  valid?: string[];
  expected?: string[] | null;
  id_regex?: string | null;
}

// Verdicts of NeMo Gym's scorer.score_citation_if (07d6b0d) on the same inputs.
const CASES: Case[] = [
  { name: 'empty answer', grammar: 'ascii_brackets', text: '', toolCalls: 0, reward: 0.0, gate: 'structural' },
  { name: 'whitespace only', grammar: 'ascii_brackets', text: '   \n\t ', toolCalls: 0, reward: 0.0, gate: 'structural' },
  { name: 'tool call instead of answer', grammar: 'ascii_brackets', text: 'Dec 31 1999 [citation_rjzb]', toolCalls: 1, reward: 0.0, gate: 'structural' },
  { name: 'citation with no answer', grammar: 'ascii_brackets', text: '[citation_rjzb]', toolCalls: 0, reward: 0.0, gate: 'no_answer' },
  { name: 'unicode answer', grammar: 'ascii_brackets', text: 'Réponse : le 31 décembre 1999 【x】 [citation_rjzb]', toolCalls: 0, reward: 1.0, gate: null },
  { name: 'Sources trailer leaks a raw ID', grammar: 'ascii_brackets', text: 'On 31 December 1999 [citation_rjzb]. Sources: citation_rjzb', toolCalls: 0, reward: 0.0, gate: 'malformed_attempt' },
  { name: 'markdown link is not a citation', grammar: 'ascii_brackets', text: 'On 31 December 1999 [citation_rjzb](https://x.org)', toolCalls: 0, reward: 0.0, gate: 'malformed_attempt' },
  { name: 'hallucinated ID only', grammar: 'ascii_brackets', text: 'On 31 December 1999 [citation_zzzz]', toolCalls: 0, reward: 0.0, gate: 'must_cite' },
  { name: 'valid plus hallucinated', grammar: 'ascii_brackets', text: 'On 31 December 1999 [citation_rjzb] [citation_zzzz]', toolCalls: 0, reward: 0.0, gate: 'no_hallucination' },
  { name: 'reserved example ID', grammar: 'ascii_brackets', text: 'On 31 December 1999 [citation_xmpl]', toolCalls: 0, reward: 0.0, gate: 'must_cite' },
  { name: 'wrong valid ID misses the gold one', grammar: 'ascii_brackets', text: 'On 31 December 1999 [citation_ggxj]', toolCalls: 0, reward: 0.0, gate: 'correctness_missed_gold' },
  {
    name: 'over-citation beyond slack',
    grammar: 'ascii_brackets',
    text: 'On 31 December 1999 [citation_rjzb] [citation_ggxj] [citation_gge0]',
    toolCalls: 0,
    reward: 0.0,
    gate: 'correctness_over_cap',
  },
  { name: 'one extra citation within slack', grammar: 'ascii_brackets', text: 'On 31 December 1999 [citation_rjzb] [citation_ggxj]', toolCalls: 0, reward: 1.0, gate: null },
  { name: 'upper-case leaked ID', grammar: 'ascii_brackets', text: 'On 31 December 1999 [citation_rjzb] CITATION_RJZB', toolCalls: 0, reward: 0.0, gate: 'malformed_attempt' },
  { name: 'repeated citation of the same ID', grammar: 'ascii_brackets', text: 'Gateway sold it [citation_rjzb] on 31 December 1999 [citation_rjzb].', toolCalls: 0, reward: 1.0, gate: null },
  { name: 'extra whitespace around the answer', grammar: 'ascii_brackets', text: '\n\n   On 31 December 1999 [citation_rjzb]   \n', toolCalls: 0, reward: 1.0, gate: null },
  { name: 'fullwidth brackets', grammar: 'fullwidth_brackets', text: 'On 31 December 1999 【citation_rjzb】', toolCalls: 0, reward: 1.0, gate: null },
  { name: 'cite_xml multi-ID span', grammar: 'cite_xml', text: 'On 31 December 1999 <cite>citation_rjzb,citation_ggxj</cite>', toolCalls: 0, reward: 1.0, gate: null },
  { name: 'cite_xml comma-space list', grammar: 'cite_xml', text: 'On 31 December 1999 <cite>citation_rjzb, citation_ggxj</cite>', toolCalls: 0, reward: 0.0, gate: 'malformed_attempt' },
  { name: 'cite_xml stray open tag', grammar: 'cite_xml', text: 'On 31 December 1999 <cite>citation_rjzb</cite> <cite>', toolCalls: 0, reward: 0.0, gate: 'malformed_attempt' },
  { name: 'cite_xml empty markup', grammar: 'cite_xml', text: 'On 31 December 1999 <cite>citation_rjzb</cite> <cite></cite>', toolCalls: 0, reward: 0.0, gate: 'malformed_attempt' },
  {
    name: 'claim wrap holds the whole answer',
    grammar: 'claim_wrap_xml',
    text: '<cite index="citation_rjzb">Gateway sold the Amiga rights on 31 December 1999.</cite>',
    toolCalls: 0,
    reward: 1.0,
    gate: null,
  },
  {
    name: 'claim wrap with a blank claim',
    grammar: 'claim_wrap_xml',
    text: 'The date was 31 December 1999. <cite index="citation_rjzb">  </cite>',
    toolCalls: 0,
    reward: 0.0,
    gate: 'malformed_attempt',
  },
  { name: 'claim wrap across lines', grammar: 'claim_wrap_xml', text: '<cite index="citation_rjzb">Gateway sold it\non 31 December 1999.</cite>', toolCalls: 0, reward: 1.0, gate: null },
  { name: 'paren_part', grammar: 'paren_part', text: 'On 31 December 1999 (citation_rjzb).', toolCalls: 0, reward: 1.0, gate: null },
  { name: 'markdown_footnote', grammar: 'markdown_footnote', text: 'On 31 December 1999[^citation_rjzb].', toolCalls: 0, reward: 1.0, gate: null },
  { name: 'wrong grammar for the row', grammar: 'web_brackets', text: 'On 31 December 1999 [citation_rjzb].', toolCalls: 0, reward: 0.0, gate: 'malformed_attempt' },
  { name: 'holdout grammar', grammar: 'curly_double', text: 'On 31 December 1999 {{citation_rjzb}}.', toolCalls: 0, reward: 1.0, gate: null },
  { name: 'unknown grammar', grammar: 'no_such_grammar', text: 'On 31 December 1999 [citation_rjzb].', toolCalls: 0, reward: 0.0, gate: 'unknown_grammar' },
  { name: 'no_cite plain answer', grammar: 'cite_xml', text: 'On 31 December 1999.', toolCalls: 0, reward: 1.0, gate: null, mode: 'no_cite' },
  { name: 'no_cite with empty cite markup', grammar: 'cite_xml', text: 'On 31 December 1999 <cite></cite>.', toolCalls: 0, reward: 0.0, gate: 'no_cite', mode: 'no_cite' },
  { name: 'no_cite with a raw ID', grammar: 'cite_xml', text: 'On 31 December 1999, see citation_rjzb.', toolCalls: 0, reward: 0.0, gate: 'no_cite', mode: 'no_cite' },
  { name: 'no_cite citation only', grammar: 'web_brackets', text: '[web:citation_rjzb]', toolCalls: 0, reward: 0.0, gate: 'no_cite', mode: 'no_cite' },
  { name: 'no expected IDs: any valid citation', grammar: 'ascii_brackets', text: 'On 31 December 1999 [citation_ggxj]', toolCalls: 0, reward: 1.0, gate: null, expected: null },
  {
    name: 'numeric default ID scheme',
    grammar: 'ascii_brackets',
    text: 'On 31 December 1999 [citation_2]',
    toolCalls: 0,
    reward: 1.0,
    gate: null,
    valid: ['citation_1', 'citation_2'],
    expected: ['citation_2'],
    id_regex: null,
  },
  {
    name: 'snippet IDs without the snippet part',
    grammar: 'ref_colon',
    text: 'On 31 December 1999 [ref:citation_rjzb]',
    toolCalls: 0,
    reward: 0.0,
    gate: 'malformed_attempt',
    id_kind: 'snippet',
    valid: ['citation_rjzb:snippet_1'],
    expected: ['citation_rjzb:snippet_1'],
    id_regex: 'citation_[a-z0-9]{4}:snippet_[0-9]+',
  },
];

function taskFor(c: Case): CitationIfTask {
  const verifier = {
    type: 'citation_if',
    mode: c.mode ?? 'cite',
    grammar: c.grammar,
    id_kind: c.id_kind ?? 'full_source',
    ...(c.id_regex === null ? {} : { id_regex: c.id_regex ?? 'citation_[a-z0-9]{4}' }),
    valid_id_set: c.valid ?? ['citation_ggxj', 'citation_gge0', 'citation_rjzb'],
    expected_ids: c.expected === undefined ? ['citation_rjzb'] : c.expected,
    expected_slack: 1,
    min_valid_citations: 1,
  };
  return citationIf.taskSchema.parse({ ...tasks[0], verifier });
}

function episode(c: Case) {
  const response = answerResponse(c.text);
  for (let i = 0; i < c.toolCalls; i++) response.output.push({ type: 'function_call', call_id: `c${i}`, name: 'web_search', arguments: '{}' });
  return response;
}

describe('citation_if gates', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const result = verify(taskFor(c), episode(c));
    expect(result.reward).toBe(c.reward);
    expect(result.match_details.gate_failed ?? null).toBe(c.gate);
    if (c.reward === 0) expect(result.failure_reason).toContain(c.gate!);
  });

  it('joins the text of several assistant messages with newlines', () => {
    const response = answerResponse('On 31 December 1999');
    response.output.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '[citation_rjzb]' }] });
    expect(verify(tasks[0]!, response).reward).toBe(1);
  });

  it('answers any tool call with the closing text', async () => {
    const reply = await citationIf.tools.web_search!.run({ query: 'x' }, { task: tasks[0]!, state: null });
    expect(reply.body).toBe('No further tool results are available. Provide your final answer.');
  });
});

describe('citation_if oracle', () => {
  it.each(tasks.map((t, i) => [i, t] as const))('task %i: correct passes, wrong fails', (_i, task) => {
    for (const correct of [true, false]) {
      const output = citationIfOracle(task, [], { correct, rng: seededRng(3) });
      expect(verify(task, { id: 'oracle', output }).reward).toBe(correct ? 1 : 0);
    }
  });
});

describe('citation_if task-supplied id_regex', () => {
  const withIdRegex = (id_regex: string) => ({ ...rows[0]!, verifier: { ...rows[0]!.verifier, id_regex } });

  it('refuses a row whose id_regex does not compile, naming the field and the reason', () => {
    const parsed = citationIf.taskSchema.safeParse(withIdRegex('citation_([a-z'));
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(['verifier', 'id_regex']);
    expect(parsed.error!.issues[0]!.message).toMatch(/is not a valid regular expression \(re\.error: unterminated character set/);
  });

  it('a catastrophically backtracking id_regex fails verify with REGEX_TIMEOUT; the next row is graded', async () => {
    const [frozen, next] = await verifyInChild([
      { env: 'citation_if', task: withIdRegex('(?:citation_(?:[a-z]+)+!)'), text: `On 31 December 1999 [citation_${'a'.repeat(2000)}]` },
      { env: 'citation_if', task: rows[0], text: 'On 31 December 1999 [citation_rjzb]' },
    ]);
    expect(frozen!.error?.code).toBe('REGEX_TIMEOUT');
    expect(next).toMatchObject({ reward: 1 });
    expect(next!.ticks).toBeGreaterThan(frozen!.ticks);
  });
});
