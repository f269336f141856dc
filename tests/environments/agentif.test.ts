// agentif against NeMo Gym 0.7.0: verdicts NeMo Gym's own verify gave (its judge pipeline, its exec of the
// dataset's Python checks) on responses made to probe it, the judge's replies replayed by prompt
// (agentif.cases.py), and the recorded rollouts' rewards, which an older NeMo Gym wrote as CSR.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentif, AgentIFTask } from '../../src/environments/agentif';
import { agentifOracle } from '../../src/environments/agentif/oracle';
import { getEnvironment } from '../../src/environments/registry';
import { JudgeError, type JudgeCall } from '../../src/environments/types';
import { outputText, type ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { FIXTURES, answerResponse, failingJudge, judgeReply, readJsonl } from './nemo_fixtures';

const tasks = readJsonl<Record<string, unknown>>(path.resolve(import.meta.dirname, '../../src/environments/agentif/data/example.jsonl'));

interface Case {
  row?: number;
  task?: Record<string, unknown>;
  text: string;
  judge: Record<string, string>;
  verdict: Record<string, unknown>;
}

/** Answers each prompt with the reply NeMo Gym's scripted judge gave it, and keeps what was asked. */
function promptJudge(replies: Record<string, string>): { judge: JudgeCall; asked: string[] } {
  const asked: string[] = [];
  const judge: JudgeCall = async (params) => {
    const prompt = (params.input as { content: string }[])[0]!.content;
    asked.push(prompt);
    if (!Object.hasOwn(replies, prompt)) throw new Error(`judge asked a prompt NeMo Gym did not ask: ${prompt.slice(0, 200)}`);
    return judgeReply(replies[prompt]!);
  };
  return { judge, asked };
}

const cases = readJsonl<Case>(path.join(import.meta.dirname, 'agentif.cases.jsonl'));
const refused = (c: Case) => JSON.stringify(c.task ?? {}).includes('"unknown_step"');

describe('agentif against NeMo Gym verify on generated cases', () => {
  it(`agrees on every verdict and judge prompt of ${cases.filter((c) => !refused(c)).length} cases`, { timeout: 600_000 }, async () => {
    const mismatches: string[] = [];
    const check = async (c: Case) => {
      const task = AgentIFTask.parse(c.row === undefined ? c.task : tasks[c.row]);
      const { judge, asked } = promptJudge(c.judge);
      const result = (await agentif.verify(task, answerResponse(c.text), { state: null, judge })) as Record<string, unknown>;
      const got = Object.fromEntries(Object.keys(c.verdict).map((k) => [k, result[k]]));
      if (JSON.stringify(got) !== JSON.stringify(c.verdict)) mismatches.push(`${JSON.stringify(c.text).slice(0, 80)}: ${JSON.stringify(got)} != ${JSON.stringify(c.verdict)}`);
      if ([...new Set(asked)].sort().join('\n') !== Object.keys(c.judge).sort().join('\n')) mismatches.push(`${JSON.stringify(c.text).slice(0, 80)}: asked other prompts`);
    };
    // Three verifies at a time: each mostly waits for its jail to start.
    const queue = cases.filter((c) => !refused(c));
    await Promise.all(
      [0, 1, 2].map(async () => {
        for (let c = queue.shift(); c; c = queue.shift()) await check(c);
      }),
    );
    expect(mismatches).toEqual([]);
    expect(cases.filter((c) => c.verdict.reward === 1).length).toBeGreaterThan(10);
    expect(cases.filter((c) => (c.verdict.n_skipped as number) > 0).length).toBeGreaterThan(10);
  });

  it('refuses a step type NeMo Gym would skip, naming the field', () => {
    const c = cases.find(refused)!;
    const parsed = AgentIFTask.safeParse(c.task);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(['verifier_metadata', 'constraints', 0, 'evaluation', 0, 'type']);
  });
});

interface Recorded {
  responses_create_params: { input: unknown };
  response: ResponseObject;
  reward: number;
  n_true: number;
  n_false: number;
  isr_pass: number;
  _ng_task_index: number;
}

describe("agentif's recorded rollouts", () => {
  const rollouts = readJsonl<Recorded>(path.join(FIXTURES, 'agentif', 'example_rollouts.jsonl'));
  it('were rewarded with CSR, where NeMo Gym 0.7.0 rewards ISR: the same responses scored again by its verify get 0 or 1', () => {
    for (const r of rollouts) {
      expect(r.reward).toBeCloseTo(r.n_true / (r.n_true + r.n_false), 4);
      const text = outputText(r.response.output);
      const rescored = cases.find((c) => c.row === r._ng_task_index && c.text === text);
      expect(rescored?.verdict.reward).toBe(rescored?.verdict.isr_pass);
    }
    expect(rollouts.filter((r) => r.reward !== r.isr_pass)).toHaveLength(4);
  });
});

describe('agentif verify', () => {
  const task = (evaluation: unknown[], extra: Record<string, unknown> = {}) =>
    AgentIFTask.parse({ responses_create_params: { input: [] }, verifier_metadata: { query_id: 3, constraints: [{ dimension: 'unconditional', type: 'formatting', evaluation, ...extra }] } });
  const code = (body: string) => ({ type: 'code', exec: `def check_following(response):\n    ${body}` });

  it('a judge that cannot be reached fails the rollout as judge_failed, not a 0', async () => {
    await expect(agentif.verify(task([{ type: 'llm', exec: 'YES or NO? {response}' }]), answerResponse('x'), { state: null, judge: failingJudge })).rejects.toBeInstanceOf(JudgeError);
  });

  it('says why a row earns nothing', async () => {
    const { judge } = promptJudge({});
    const verify = (t: AgentIFTask, text: string) => agentif.verify(t, answerResponse(text), { state: null, judge });
    expect(await verify(task([code("return 'A' in response")]), 'A')).toMatchObject({ reward: 1, n_true: 1 });
    expect(await verify(task([code("return 'A' in response")]), 'A')).not.toHaveProperty('failure_reason');
    expect(await verify(task([code("return 'A' in response")]), 'B')).toMatchObject({ reward: 0, failure_reason: 'constraint_failed' });
    expect(await verify(task([code("raise ValueError('x')")]), 'A')).toMatchObject({ reward: 0, n_error: 1, failure_reason: 'constraint_not_gradable' });
    expect(await verify(AgentIFTask.parse({ responses_create_params: { input: [] } }), 'A')).toMatchObject({ reward: 0, isr_counted: 0, failure_reason: 'no_graded_constraints' });
  });

  it("runs the checks in a jail: the host's files are out of their reach, and one that exits does not take the next down", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gymflow-agentif-host-'));
    try {
      // Readable by anyone, the jail's user too: only the jail can keep it out of reach.
      await chmod(dir, 0o755);
      const secret = path.join(dir, 'secret.txt');
      await writeFile(secret, 'A', { mode: 0o644 });
      const t = AgentIFTask.parse({
        responses_create_params: { input: [] },
        verifier_metadata: {
          constraints: [
            { evaluation: [code(`return open(${JSON.stringify(secret)}).read() == 'A'`)] },
            { evaluation: [code('import os; os._exit(0)')] },
            { evaluation: [code("return response == 'A'")] },
          ],
        },
      });
      const { judge } = promptJudge({});
      expect(await agentif.verify(t, answerResponse('A'), { state: null, judge })).toMatchObject({ n_true: 1, n_error: 2, reward: 0 });
      // Without the jail (the unsafe setting) the same check reads the host's file.
      const unjailed = getEnvironment('agentif?unsafe_no_isolation=true');
      expect(await unjailed.verify(t, answerResponse('A'), { state: null, judge })).toMatchObject({ n_true: 2, n_error: 1, reward: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('agentif oracle', () => {
  it("a wrong answer earns 0 whatever the judge says; a right one passes the rows' format checks", async () => {
    const yes: JudgeCall = async () => judgeReply('YES');
    for (const row of tasks) {
      const task = AgentIFTask.parse(row);
      const play = async (correct: boolean) =>
        (await agentif.verify(task, { id: 'r', object: 'response', output: agentifOracle(task, [], { correct, rng: seededRng(1) }) }, { state: null, judge: yes })) as Record<string, number>;
      const [right, wrong] = [await play(true), await play(false)];
      expect(wrong.reward).toBe(0);
      expect(right.n_true).toBeGreaterThan(wrong.n_true!);
    }
  });
});
