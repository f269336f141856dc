import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFinanceAgentV2, FinanceAgentV2Task, financeAgentV2, RUBRIC_JUDGE_PROMPT } from '../../src/environments/finance_agent_v2';
import { loadCorpus } from '../../src/environments/finance_agent_v2/corpus';
import { judgeVerdict, jsonObjects, parseRubric } from '../../src/environments/finance_agent_v2/rubric';
import { FilingIndex } from '../../src/environments/finance_agent_v2/search';
import { runTool } from '../../src/environments/tools';
import { JudgeError, type JudgeCall } from '../../src/environments/types';
import type { ResponseCreateParams, ResponseObject } from '../../src/schemas/responses';
import { readFileSync } from 'node:fs';
import { failingJudge, FIXTURES, judgeReply, joinToTasks, readJsonl } from './nemo_fixtures';

const DIR = path.join(FIXTURES, 'finance_agent_v2');
const tasks = readJsonl(path.join(DIR, 'example.jsonl')).map((row) => FinanceAgentV2Task.parse(row));

interface RecordedJudgement {
  criteria: string;
  votes: number[];
  evidence: string[];
  reasons: string[];
  score: number | null;
  severity: number;
  must_pass: boolean;
}
interface RecordedRollout {
  responses_create_params: { input: unknown };
  response: ResponseObject;
  reward: number;
  rubric_judgements: RecordedJudgement[];
  _ng_task_index: number;
  [key: string]: unknown;
}
const rollouts = readJsonl<RecordedRollout>(path.join(DIR, 'example_rollouts.jsonl'));

/** A fake judge (no judge model runs here) answering each criterion with its recorded votes, in order, as the JSON the prompt asks for. */
function recordedVotesJudge(judgements: RecordedJudgement[]): { judge: JudgeCall; sent: ResponseCreateParams[] } {
  const sent: ResponseCreateParams[] = [];
  const asked = new Map<string, number>();
  const judge: JudgeCall = async (params) => {
    sent.push(params);
    const prompt = (params.input as { content: string }[])[0]!.content;
    const j = judgements.find((c) => prompt.endsWith(`RUBRIC CRITERION (grade only this):\n\n${c.criteria}`));
    if (!j) throw new Error('judge asked about a criterion that was not recorded');
    const n = asked.get(j.criteria) ?? 0;
    asked.set(j.criteria, n + 1);
    const vote = j.votes[n];
    if (vote === undefined) throw new Error(`criterion asked ${n + 1} times, ${j.votes.length} votes recorded`);
    return judgeReply(`\`\`\`json\n${JSON.stringify({ extracted_evidence: j.evidence[n], score: vote, reason: j.reasons[n] })}\n\`\`\``);
  };
  return { judge, sent };
}

const AGGREGATES = [
  'rubric_total',
  'rubric_passed',
  'rubric_unresolved',
  'rubric_fraction',
  'rubric_all_pass',
  'rubric_partial_credit',
  'rubric_weighted_fraction',
  'rubric_weight_total',
  'rubric_weight_passed',
  'rubric_dealbreakers_total',
  'rubric_dealbreakers_failed',
];

describe('finance_agent_v2 conformance with NeMo Gym recordings', () => {
  it("embeds NeMo Gym's rubric judge prompt as its YAML loads", () => {
    const yaml = readFileSync(path.join(DIR, 'finance_agent_v2_rubric_judge.yaml'), 'utf8');
    const body = yaml
      .split('rubric_judge_prompt_template: |-\n')[1]!
      .split('\n')
      .map((l) => l.slice(2))
      .join('\n')
      .trimEnd();
    expect(RUBRIC_JUDGE_PROMPT).toBe(body);
  });

  it.each(joinToTasks(rollouts, tasks).map(({ rollout, task }, i) => [i, rollout, task] as const))('rollout %i: reward and rubric scores reproduce', async (_i, rollout, task) => {
    const { judge, sent } = recordedVotesJudge(rollout.rubric_judgements);
    const result = await financeAgentV2.verify(task, rollout.response, { state: { storage: {} }, judge });
    expect(result.reward).toBe(rollout.reward);
    for (const key of AGGREGATES) expect(result[key], key).toEqual(rollout[key]);
    const judgements = result.rubric_judgements as RecordedJudgement[];
    expect(judgements.map((j) => [j.criteria, j.votes, j.score, j.severity, j.must_pass])).toEqual(rollout.rubric_judgements.map((j) => [j.criteria, j.votes, j.score, j.severity, j.must_pass]));
    expect(sent).toHaveLength(rollout.rubric_judgements.reduce((n, j) => n + j.votes.length, 0));
    expect(sent[0]!.max_output_tokens).toBe(8192);
    if (rollout.reward < 1) expect(result.failure_reason).toBeTruthy();
  });
});

describe('finance_agent_v2 verify edge cases', () => {
  const task = tasks[0]!;
  const submit = (args: string): ResponseObject => ({ id: 'r', output: [{ type: 'function_call', call_id: 'c', name: 'submit_final_result', arguments: args }] });

  it('no submission scores 0 without asking the judge', async () => {
    const result = await financeAgentV2.verify(task, submit('{"final_result": 42}'), { state: { storage: {} }, judge: failingJudge });
    expect(result).toMatchObject({ reward: 0, failure_reason: 'no_final_result_submitted', rubric_total: 9 });
  });

  it('a judge that cannot be reached is a JudgeError, not a zero', async () => {
    await expect(financeAgentV2.verify(task, submit('{"final_result": "x"}'), { state: { storage: {} }, judge: failingJudge })).rejects.toBeInstanceOf(JudgeError);
    await expect(financeAgentV2.verify(task, submit('{"final_result": "x"}'), { state: { storage: {} } })).rejects.toBeInstanceOf(JudgeError);
  });

  it('replies without an integer verdict leave the criterion unresolved after ten calls, which gates the reward', async () => {
    let calls = 0;
    const judge: JudgeCall = async () => judgeReply(calls++ % 2 ? '{"score": 1.0}' : '{"score": "pass"}');
    const one = FinanceAgentV2Task.parse({ ...task, rubric: JSON.stringify([{ criteria: 'A', modifiers: { category: 'must_pass' } }]) });
    const result = await financeAgentV2.verify(one, submit('{"final_result": "x"}'), { state: { storage: {} }, judge });
    expect(calls).toBe(10);
    expect(result).toMatchObject({ reward: 0, rubric_unresolved: 1, failure_reason: 'judge_unresolved' });
  });

  it('the last JSON object with a score is the verdict, braces inside strings and LaTeX do not split it', () => {
    expect(judgeVerdict('e.g. {"score": 0} then EBITDAR_{WMT} {"reason": "has } brace", "score": 1}')).toMatchObject({ score: 1 });
    expect(judgeVerdict('{"score": true}').score).toBeNull();
    expect(jsonObjects('a {b {c}} "{" {d}')).toEqual(['{b {c}}', '{d}']);
  });

  it('rubric severities that are not positive finite numbers weigh 1; non-list rubrics are unscorable', () => {
    expect(parseRubric('[{"criteria": " x ", "modifiers": {"severity": -2}}, {"criteria": ""}, {"criteria": "y", "modifiers": {"severity": "2.5"}}]').map((c) => [c.criteria, c.severity])).toEqual([
      ['x', 1],
      ['y', 2.5],
    ]);
    expect(parseRubric('{"criteria": "x"}')).toEqual([]);
  });
});

describe('finance_agent_v2 tools over the local index', () => {
  const env = financeAgentV2;
  const call = async (name: string, args: unknown, state = { storage: {} }) => {
    const out = await runTool(env, tasks[0], state, name, JSON.stringify(args));
    return { ...out, body: JSON.parse(out.output) as { results: string } };
  };

  it('edgar_search finds filings by company text with the filters, in sec-api.io record shape', async () => {
    const { body } = await call('edgar_search', { search_query: 'crowdstrike', form_types: ['10-K'], start_date: '2024-01-01' });
    const records = JSON.parse(body.results) as { cik: string; formType: string; filedAt: string }[];
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.cik === '1535527' && r.formType === '10-K' && r.filedAt >= '2024-01-01')).toBe(true);
    expect(records.map((r) => r.filedAt)).toEqual([...records.map((r) => r.filedAt)].sort().reverse());
  });

  it('a CIK-filtered search with no text hit browses that company, leading zeros stripped', async () => {
    const { body } = await call('edgar_search', { search_query: 'nonexistentword', ciks: ['0001048286'] });
    expect((JSON.parse(body.results) as { ticker: string }[]).map((r) => r.ticker)).toEqual(['MAR']);
  });

  it('query errors and out-of-range dates come back as the tool error text', async () => {
    expect((await call('edgar_search', { search_query: '(a OR b)' })).body.results).toContain('Parentheses are not supported');
    expect((await call('edgar_search', { search_query: 'x', end_date: '1990-01-01' })).body.results).toMatch(/This local corpus covers \d{4}-\d{2}-\d{2} through/);
    expect((await call('edgar_search', { search_query: 'x', top_n_results: 0 })).body.results).toContain('top_n_results must be an integer between 1 and 100');
  });

  it('parse_html_page stores a corpus filing under the key; pages outside the corpus are refused', async () => {
    const url = 'https://www.sec.gov/Archives/edgar/data/1048286/000104828626000007/mar-20251231.htm';
    const stored = await call('parse_html_page', { url, key: 'mar' });
    expect(stored.body.results).toBe('SUCCESS: The result has been saved to the data storage under the key: mar.\nThe data_storage currently contains the following keys:\n        mar\n');
    expect(Object.keys((stored.state as { storage: object }).storage)).toEqual(['mar']);
    expect((await call('parse_html_page', { url: 'https://example.com/x', key: 'k' })).body.results).toContain('only filings in the local corpus');
  });

  it('calculator prints Python floats; unconfigured tools say they are unavailable', async () => {
    expect((await call('calculator', { expression: '(3953624/2241236)**(1/2)-1' })).body.results).toBe('0.32817067565881963');
    expect((await call('calculator', { expression: 'sqrt(16)' })).body.results).toBe('4.0');
    expect((await call('calculator', { expression: '2+3' })).body.results).toBe('5');
    expect((await call('web_search', { search_query: 'x' })).body.results).toContain("Tool 'web_search' is not available");
  });
});

describe('finance_agent_v2 BM25 index', () => {
  const filing = (url: string, body: string, filing_date = '2025-01-01') => ({
    accession_number: url,
    cik: '1',
    ticker: '',
    company_name: 'C',
    form_type: '10-K',
    document_type: '10-K',
    description: null,
    filing_date,
    url,
    body,
  });
  const index = new FilingIndex([
    filing('a', 'revenue revenue growth artificial intelligence'),
    filing('b', 'total revenue fell; competition rose', '2025-06-01'),
    filing('c', 'artificial sweeteners and growth'),
  ]);
  const all = { startDate: '1900-01-01', endDate: '2026-03-01', formTypes: null, ciks: null };
  const urls = (q: string) => index.search(q, all).map((f) => f.url);

  it('ranks by term frequency, matches phrases, prefixes, OR and NOT', () => {
    expect(urls('revenue')).toEqual(['a', 'b']);
    expect(urls('"artificial intelligence"')).toEqual(['a']);
    // Same term counts: BM25's length normalisation ranks the shorter filing first.
    expect(urls('artific* growth')).toEqual(['c', 'a']);
    expect(urls('competition OR sweeteners')).toEqual(expect.arrayContaining(['b', 'c']));
    expect(urls('growth -intelligence')).toEqual(['c']);
    expect(urls('*')).toEqual(['b', 'a', 'c']);
  });

  it('refuses a corpus row with a padded CIK, naming the line and field', () => {
    const bad = path.join(import.meta.dirname, '../fixtures/finance_bad_corpus.jsonl');
    expect(() => loadCorpus(bad)).toThrow(/line 1, field cik/);
  });

  it('--env-option corpus= swaps the corpus', () => {
    expect(() => createFinanceAgentV2({ corpus: '/nonexistent.jsonl' })).toThrow(/cannot be read/);
  });
});
