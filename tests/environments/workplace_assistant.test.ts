// workplace_assistant against NeMo Gym. The recorded rollouts are for tasks that are not in example.jsonl
// and carry no ground truth, so their rewards cannot be re-derived: replaying their calls must give the
// recorded tool outputs. Rewards and the tools' corner cases are checked against workplace_assistant.cases
// .jsonl, made by running NeMo Gym's own pandas tools and verify (workplace_assistant.cases.py).
import { createHash } from 'node:crypto';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { workplaceAssistant as env, WorkplaceTask } from '../../src/environments/workplace_assistant';
import { WORKPLACE_TOOLS, type WorkplaceState } from '../../src/environments/workplace_assistant/session';
import { freshWorkspace } from '../../src/environments/workplace_assistant/tables';
import { toTimestamp } from '../../src/environments/workplace_assistant/timestamp';
import { workplaceAssistantOracle } from '../../src/environments/workplace_assistant/oracle';
import type { ConversationItem, FunctionCallItem, ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { FIXTURES, readJsonl } from './nemo_fixtures';
import { settled, verifyInChild } from './env_helpers';

const dir = path.join(FIXTURES, 'workplace_assistant');
const tasks = readJsonl(path.join(dir, 'example.jsonl')).map((t) => WorkplaceTask.parse(t));

async function call(name: string, args: unknown, state: WorkplaceState) {
  const tool = env.tools[name]!;
  return tool.run(tool.args.parse(args), { task: tasks[0]!, state });
}

function episode(calls: { name: string; arguments: string }[], answer = 'Done.'): ResponseObject {
  const output: ConversationItem[] = calls.map((c, i) => ({ type: 'function_call', call_id: `call_${i}`, name: c.name, arguments: c.arguments }));
  output.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer }] });
  return { id: 'resp_test', output };
}

/** Python's json.loads accepts the NaN that NeMo Gym's recorded outputs contain; our tools answer null. */
function parsePythonJson(text: string): unknown {
  return JSON.parse(text.replace(/:NaN(?=[,}\]])/g, ':null'));
}

describe('workplace_assistant conformance with NeMo Gym recorded rollouts', () => {
  const rollouts = readJsonl<{ response: ResponseObject; reward: number }>(path.join(dir, 'example_rollouts.jsonl'));
  rollouts.forEach((rollout, i) => {
    it(`rollout ${i}: replaying the recorded calls gives the recorded outputs`, async () => {
      let state = settled(env.seedSession(tasks[0]!));
      const outputs = new Map(rollout.response.output.flatMap((o) => (o.type === 'function_call_output' ? [[o.call_id, o.output]] : [])));
      const calls = rollout.response.output.filter((o): o is FunctionCallItem => o.type === 'function_call');
      expect(calls.length).toBeGreaterThan(0);
      for (const c of calls) {
        const reply = await call(c.name, JSON.parse(c.arguments), state);
        state = reply.state;
        expect(reply.status).toBe(200);
        expect(JSON.parse(JSON.stringify(reply.body))).toEqual(parsePythonJson(String(outputs.get(c.call_id))));
      }
      // Without the task's ground truth, the recorded reward is only checked for consistency: an episode
      // whose reference is its own calls scores 1.
      const truth = { ...tasks[0]!, ground_truth: calls.map((c) => ({ name: c.name, arguments: c.arguments })) };
      expect(settled(env.verify(truth, rollout.response, { state })).reward).toBe(1);
    });
  });
});

interface ToolsCase {
  kind: 'tools';
  calls: { name: string; arguments: string }[];
  outputs: unknown[];
}
interface VerifyCase {
  kind: 'verify';
  variant: string;
  predicted: { name: string; arguments: string }[];
  ground_truth: { name: string; arguments: string }[];
  reward: number;
}

/** The canonical JSON the case generator hashes long outputs with: sorted keys, compact. */
function canonical(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sort(value));
}

describe('workplace_assistant against NeMo Gym run on generated cases', () => {
  const cases = readJsonl<ToolsCase | VerifyCase>(path.join(import.meta.dirname, 'workplace_assistant.cases.jsonl'));
  const toolCases = cases.filter((c): c is ToolsCase => c.kind === 'tools');
  const verifyCases = cases.filter((c): c is VerifyCase => c.kind === 'verify');

  it(`reproduces every tool output of ${toolCases.length} call sequences`, async () => {
    const mismatches: string[] = [];
    for (const c of toolCases) {
      let state = settled(env.seedSession(tasks[0]!));
      for (const [i, recorded] of c.calls.entries()) {
        const reply = await call(recorded.name, JSON.parse(recorded.arguments), state);
        state = reply.state;
        const body = JSON.parse(JSON.stringify(reply.body)) as { output: unknown };
        const want = c.outputs[i];
        const hashed = want !== null && typeof want === 'object' && 'sha256' in want;
        const got = hashed ? { sha256: createHash('sha256').update(canonical(body)).digest('hex') } : body.output;
        if (!isDeepStrictEqual(got, want)) {
          mismatches.push(`${recorded.name} ${recorded.arguments}: ${JSON.stringify(got).slice(0, 200)} != ${JSON.stringify(want).slice(0, 200)}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it(`gives NeMo Gym's verdict for ${verifyCases.length} predicted/ground-truth pairs`, () => {
    const wrong = verifyCases.filter((c) => {
      const result = settled(env.verify({ ...tasks[0]!, ground_truth: c.ground_truth }, episode(c.predicted), { state: { applied: [] } }));
      return result.reward !== c.reward;
    });
    expect(wrong.map((c) => c.variant)).toEqual([]);
    expect(new Set(verifyCases.map((c) => c.reward))).toEqual(new Set([0, 1]));
  });
});

describe('workplace_assistant tasks and verify', () => {
  it('scores each example task 1 for its ground truth and 0 with the tables named when nothing was done', () => {
    for (const task of tasks) {
      const truth = typeof task.ground_truth === 'string' ? [] : task.ground_truth;
      expect(settled(env.verify(task, episode(truth), { state: { applied: [] } }))).toEqual({ reward: 1 });
      const idle = settled(env.verify(task, episode([], ''), { state: { applied: [] } }));
      expect(idle).toMatchObject({ reward: 0, failure_reason: 'final_state_mismatch' });
      expect((idle.mismatched_tables as string[]).length).toBeGreaterThan(0);
    }
  });

  it('ignores calls it cannot run (bad JSON, unknown tool, non-object arguments), as NeMo Gym does', () => {
    const task = tasks[0]!;
    const truth = typeof task.ground_truth === 'string' ? [] : task.ground_truth;
    const noise = [
      { name: 'email_delete_email', arguments: '{not json' },
      { name: 'no_such_tool', arguments: '{}' },
      { name: 'email_delete_email', arguments: '["00000057"]' },
      { name: 'email_send_email', arguments: '{"recipient": "a@b.com", "subject": "s", "body": "b", "cc": "x"}' },
    ];
    expect(settled(env.verify(task, episode([...noise, ...truth]), { state: { applied: [] } })).reward).toBe(1);
  });

  it('treats a string ground truth as no calls, and compares case-insensitively except status, list and board', () => {
    const task = { ...tasks[0]!, ground_truth: '[]' };
    expect(settled(env.verify(task, episode([]), { state: { applied: [] } })).reward).toBe(1);
    const update = (value: string) => ({
      name: 'customer_relationship_manager_update_customer',
      arguments: JSON.stringify({ customer_id: '00000189', field: 'customer_name', new_value: value }),
    });
    const withTruth = { ...tasks[0]!, ground_truth: [update('Taylor JACKSON-Smith')] };
    expect(settled(env.verify(withTruth, episode([update('taylor jackson-smith')]), { state: { applied: [] } })).reward).toBe(1);
    const status = (value: string) => ({
      name: 'customer_relationship_manager_update_customer',
      arguments: JSON.stringify({ customer_id: '00000189', field: 'status', new_value: value }),
    });
    expect(settled(env.verify({ ...tasks[0]!, ground_truth: [status('Won')] }, episode([status('won')]), { state: { applied: [] } })).reward).toBe(0);
  });
});

describe('workplace_assistant session state', () => {
  it('stores only the calls that changed the tables, stays JSON-safe, and never mutates the state it was given', async () => {
    const start = settled(env.seedSession(tasks[0]!));
    const read = await call('email_search_emails', { query: 'kofi', page_size: 1 }, start);
    expect(read.state).toBe(start);
    const sent = await call('email_send_email', { recipient: 'Kofi.Mensah@atlas.com', subject: 'Hi ✓', body: 'Grüße' }, read.state);
    expect(sent.body).toEqual({ output: 'Email sent successfully.' });
    expect(start).toEqual({ applied: [] });
    expect(sent.state).toEqual({
      applied: [{ name: 'email_send_email', args: { recipient: 'Kofi.Mensah@atlas.com', subject: 'Hi ✓', body: 'Grüße' } }],
    });
    expect(JSON.stringify(sent.state).length).toBeLessThan(200);
  });

  it('resumes from a JSON round-trip of its state exactly where it left off', async () => {
    let state = settled(env.seedSession(tasks[0]!));
    state = (await call('email_delete_email', { email_id: '00000259' }, state)).state;
    state = (await call('calendar_create_event', { event_name: 'Sync', participant_email: 'A@B.com', event_start: '2023-12-01 10:00:00', duration: '30' }, state)).state;
    const resumed = JSON.parse(JSON.stringify(state)) as WorkplaceState;
    const search = { query: 'sync', time_min: '2023-12-01 00:00:00', page_size: 2 };
    expect((await call('calendar_search_events', search, resumed)).body).toEqual((await call('calendar_search_events', search, state)).body);
    expect((await call('email_search_emails', { query: 'kofi', page_size: 1 }, resumed)).body).not.toMatchObject({
      output: { emails: [{ email_id: '00000259' }] },
    });
  });

  it('keeps the pristine tables untouched across sessions', async () => {
    const before = freshWorkspace().emails.rows.length;
    await call('email_delete_email', { email_id: '00000001' }, settled(env.seedSession(tasks[0]!)));
    expect(freshWorkspace().emails.rows.length).toBe(before);
  });
});

describe('workplace_assistant tool edge cases', () => {
  const state: WorkplaceState = { applied: [] };

  it('offers the 27 tools of the task rows', () => {
    const declared = tasks[0]!.responses_create_params.tools!.map((t) => t.name).sort();
    expect(Object.keys(WORKPLACE_TOOLS).sort()).toEqual(declared);
    expect(Object.keys(env.tools).sort()).toEqual(declared);
  });

  it('answers non-object arguments with a validation failure (the route replies 422) and accepts any object', () => {
    const tool = env.tools.email_send_email!;
    for (const args of [[], 'x', 5, null]) expect(tool.args.safeParse(args).success).toBe(false);
    expect(tool.args.safeParse({ anything: [1, { a: null }] }).success).toBe(true);
  });

  it('reports Python errors in the output text, as the catch-all route does', async () => {
    expect((await call('email_send_email', { recipient: 'a@b.com', subject: 's', body: 'b', cc: 'x' }, state)).body).toEqual({
      output: "Error executing tool 'email_send_email': EmailTool.send_email() got an unexpected keyword argument 'cc'",
    });
    expect((await call('calendar_search_events', { query: '(' }, state)).body).toEqual({
      output: "Error executing tool 'calendar_search_events': missing ), unterminated subpattern at position 0",
    });
    expect((await call('email_search_emails', { query: 5 }, state)).body).toEqual({
      output: "Error searching emails: 'int' object has no attribute 'lower'",
    });
  });

  it('drops null arguments before calling (so defaults apply)', async () => {
    const withNull = await call('email_search_emails', { query: 'kofi', page: null, page_size: null }, state);
    expect(withNull.body).toEqual((await call('email_search_emails', { query: 'kofi' }, state)).body);
    expect((await call('company_directory_find_email_address', { name: null }, state)).body).toEqual({ output: 'Name not provided.' });
  });

  it('handles unicode in stored values and searches', async () => {
    const sent = await call('email_send_email', { recipient: 'nadia.moreau@atlas.com', subject: 'Überprüfung ✓', body: '日本語のメール' }, state);
    const found = await call('email_search_emails', { query: 'ÜBERPRÜFUNG 日本語' }, sent.state);
    expect(found.body).toMatchObject({ output: { emails: [{ email_id: '500', subject: 'Überprüfung ✓', body: '日本語のメール' }] } });
    expect((await call('calendar_search_events', { query: 'ü' }, state)).body).toEqual({ output: 'No events found.' });
  });

  it('reads dates as pandas does and rejects what pandas rejects', () => {
    expect(toTimestamp('Nov 30, 2023')?.date).toBe('2023-11-30');
    expect(toTimestamp('11/30/2023 3pm')).toMatchObject({ date: '2023-11-30', aware: false });
    expect(toTimestamp('2023-11-30T10:00:00+02:00')).toMatchObject({ aware: true });
    expect(() => toTimestamp('2023-11-31')).toThrow('day is out of range for month: 2023-11-31');
    expect(() => toTimestamp('next week')).toThrow('Unknown datetime string format, unable to parse: next week');
    expect(() => toTimestamp([1])).toThrow("Cannot convert input [[1]] of type <class 'list'> to Timestamp");
  });
});

describe('workplace_assistant oracle', () => {
  it('plays the ground truth when correct and falls short otherwise', async () => {
    for (const correct of [true, false]) {
      for (const task of tasks) {
        const rng = seededRng(`oracle-${correct}`);
        const history: ConversationItem[] = [];
        let state = settled(env.seedSession(task));
        for (let turn = 0; turn < 20; turn++) {
          const items = workplaceAssistantOracle(task, history, { correct, rng });
          history.push(...items);
          const calls = items.filter((i): i is FunctionCallItem => i.type === 'function_call');
          if (calls.length === 0) break;
          for (const c of calls) {
            const reply = await call(c.name, JSON.parse(c.arguments), state);
            state = reply.state;
            history.push({ type: 'function_call_output', call_id: c.call_id, output: JSON.stringify(reply.body) });
          }
        }
        expect(settled(env.verify(task, { id: 'r', output: history }, { state })).reward).toBe(correct ? 1 : 0);
      }
    }
  });
});

describe('workplace_assistant search patterns from the model', () => {
  const search = (task_name: string): ConversationItem => ({
    type: 'function_call',
    call_id: 'call_search',
    name: 'project_management_search_tasks',
    arguments: JSON.stringify({ task_name }),
  });
  const row = readJsonl(path.join(dir, 'example.jsonl'))[0];

  it('a catastrophically backtracking search pattern fails verify with REGEX_TIMEOUT; the next episode is graded', async () => {
    const [frozen, next] = await verifyInChild([
      { env: 'workplace_assistant', task: row, text: 'Done.', output: [search('^(?:\\w+\\s*)+!')] },
      { env: 'workplace_assistant', task: row, text: 'Done.', output: [search('prototype')] },
    ]);
    expect(frozen!.error?.code).toBe('REGEX_TIMEOUT');
    expect(next!.error).toBeUndefined();
    expect(next!.reward).toBe(0);
    expect(next!.ticks).toBeGreaterThan(frozen!.ticks);
  });
});
