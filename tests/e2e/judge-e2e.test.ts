// Judge-graded environments end to end in a durable eval on a real Temporal server: the policy is the
// mock replaying NeMo Gym's recorded episodes, the judge is a second mock model replaying the recorded
// judge replies by prompt, both through the gateway. The rewards must equal the ones NeMo Gym recorded.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bbqReferenceRollouts } from '../../scripts/conformance';
import { getEnvironment } from '../../src/environments/registry';
import { assistantMessage } from '../../src/environments/example_single_tool_call';
import { parseModelSpec } from '../../src/gateway/spec';
import { keyValueFlag } from '../../src/cli/args';
import { EVAL_RUN_FLAG_NAMES } from '../../src/cli/commands/eval-run';
import { readConfigFile } from '../../src/cli/config-file';
import { configuredEnvironmentName } from '../../src/environments/names';
import { startFakeVLLM } from '../helpers/fake-vllm-server';
import type { ResponseObject } from '../../src/schemas/responses';
import { inputKey, readRows, type Row } from '../../src/reverify';
import { recordedJudgeExchanges, type JudgeExchange } from '../../src/reverify/judge';
import { FIXTURES, readJsonl, writeJsonl } from '../environments/nemo_fixtures';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

/** Runs the tasks with the policy and the judge both replayed, and returns each record with the reward NeMo Gym recorded for its input. */
async function judgedRun(envName: string, inputFile: string, rollouts: readonly Row[], exchanges: readonly JudgeExchange[]) {
  const dir = await tempDir(`gymflow-judge-${envName}-`);
  const policyReplay = path.join(dir, 'policy_replay.jsonl');
  const judgeReplay = path.join(dir, 'judge_replay.jsonl');
  writeJsonl(policyReplay, rollouts);
  writeJsonl(judgeReplay, exchanges);
  const runDir = path.join(dir, 'run');
  const config = {
    ...runConfig({ runDir, envName, inputFile, model: { replay_files: [policyReplay] } }),
    judgeModel: parseModelSpec({ backend: 'mock', env: envName, replay_files: [judgeReplay] }),
  };
  const result = await runInProcess(server, config);
  const recorded = new Map(rollouts.map((r) => [inputKey(r), r.reward]));
  const records = readJsonl<Row>(path.join(runDir, 'rollouts.jsonl'));
  return { result, runDir, records: records.map((r) => ({ record: r, recorded: recorded.get(inputKey(r)) })) };
}

describe('equivalence_llm_judge in a durable eval', () => {
  it('reproduces every recorded reward and first verdict, with the judge replayed through the gateway', async () => {
    const dir = path.join(FIXTURES, 'equivalence_llm_judge');
    const rollouts = readJsonl<Row>(path.join(dir, 'example_rollouts_openqa.jsonl'));
    const { result, runDir, records } = await judgedRun('equivalence_llm_judge', path.join(dir, 'example_openqa.jsonl'), rollouts, recordedJudgeExchanges(rollouts));

    expect(result.metrics).toMatchObject({ rollouts_recorded: 5, rollouts_failed: 0 });
    expect(records.map((r) => r.record.reward)).toEqual(records.map((r) => r.recorded));
    expect(new Set(records.map((r) => r.recorded))).toEqual(new Set([0, 1]));
    // The registered environment has NeMo Gym's shipped settings (one judge call); the recordings were made
    // with the OpenQA settings, which also ask with the answers swapped. The first verdicts must agree.
    const firstLabel = (row: Row) => (row.judge_evaluations as { verdict_label?: string | null }[])[0]?.verdict_label;
    for (const { record } of records) {
      const recorded = rollouts.find((r) => inputKey(r) === inputKey(record))!;
      expect(firstLabel(record)).toBe(firstLabel(recorded));
    }
    // Every judge call is in the run's call log beside the policy's, under the rollout it graded.
    const calls = readdirSync(path.join(runDir, 'model_calls')).flatMap((f) => readJsonl<Row>(path.join(runDir, 'model_calls', f)));
    const judged = calls.filter((c) => c.role === 'judge');
    for (const { record } of records) {
      const own = judged.filter((c) => c.rollout_id === record._ng_rollout_id);
      const evaluations = record.judge_evaluations as { response?: { output?: unknown } }[];
      expect(own).toHaveLength(evaluations.length);
      expect(own.map((c) => (c.response as { output: unknown }).output)).toEqual(evaluations.map((e) => e.response?.output));
      for (const c of own) expect(c).toMatchObject({ status: 200, backend: 'mock', attempt: 1 });
    }
  });
});

describe('social_bias in a durable eval', () => {
  it("reproduces the reference rollouts' rewards from their recorded judgments", async () => {
    const data = path.resolve(import.meta.dirname, '../../src/environments/social_bias/data');
    const references = await readRows(path.join(data, 'example_rollouts.jsonl'), 'references');
    const tasks = await readRows(path.join(data, 'example.jsonl'), 'tasks');
    // The references hold the policy's answer and both judgments; their judge prompts are rendered by
    // our verify (tests/environments/social_bias.test.ts checks they hash like NeMo Gym's).
    const { rollouts, exchanges } = await bbqReferenceRollouts(getEnvironment('social_bias'), references, tasks);
    const { result, records } = await judgedRun(
      'social_bias',
      path.join(data, 'example.jsonl'),
      rollouts.map((r) => r.row),
      exchanges,
    );

    expect(result.metrics).toMatchObject({ rollouts_recorded: 5, rollouts_failed: 0 });
    expect(records.map((r) => r.record.reward)).toEqual(records.map((r) => r.recorded));
    // Full, partial (low-quality explanation) and no credit are all among them.
    expect(records.map((r) => r.record.reward as number).sort()).toEqual([0, 0.5, 1, 1, 1]);
  });
});

describe('agentif in a durable eval', () => {
  it("gives NeMo Gym 0.7.0's rewards and counts, its Python checks jailed, the judge replayed through the gateway", { timeout: 300_000 }, async () => {
    const data = path.resolve(import.meta.dirname, '../../src/environments/agentif/data/example.jsonl');
    const recorded = readJsonl<Row>(path.join(FIXTURES, 'agentif', 'example_rollouts.jsonl'));
    // NeMo Gym 0.7.0's verdicts, with its lenient scripted judge's replies, on the recorded responses from
    // their first <code> on (tests/environments/agentif.cases.py): some rows pass, some do not.
    const cases = readJsonl<{ row?: number; text: string; lenient_judge?: boolean; judge: Record<string, string>; verdict: Row }>(
      path.resolve(import.meta.dirname, '../environments/agentif.cases.jsonl'),
    );
    const graded = recorded.map((r) => cases.find((c) => c.lenient_judge && c.row === r._ng_task_index && c.text.startsWith('<code>'))!);
    const rollouts = recorded.map((r, i) => ({ ...r, response: { ...(r.response as ResponseObject), output: [assistantMessage(graded[i]!.text)] }, reward: graded[i]!.verdict.reward }));
    const exchanges: JudgeExchange[] = graded.flatMap((c) =>
      Object.entries(c.judge).map(([prompt, reply]) => ({ responses_create_params: { input: [{ role: 'user', content: prompt }] }, response: { output: [assistantMessage(reply)] } })),
    );
    const { result, records } = await judgedRun('agentif', data, rollouts, exchanges);

    expect(result.metrics).toMatchObject({ rollouts_recorded: 5, rollouts_failed: 0 });
    expect(records.map((r) => r.record.reward)).toEqual(records.map((r) => r.recorded));
    expect(new Set(records.map((r) => r.recorded))).toEqual(new Set([0, 1]));
    for (const { record } of records) {
      const verdict = graded.find((c) => c.row === record._ng_task_index)!.verdict;
      const counts = (v: Row) => ({ n_true: v.n_true, n_false: v.n_false, n_skipped: v.n_skipped, n_error: v.n_error });
      expect(counts(record)).toEqual(counts(verdict));
    }
  });
});

describe('finance_sec_search in a durable eval', () => {
  it("reproduces the recorded rewards, its tools over the offline corpus, the judge's recorded replies replayed through the gateway", { timeout: 300_000 }, async () => {
    const data = path.resolve(import.meta.dirname, '../../src/environments/finance_sec_search/data/example.jsonl');
    const rollouts = readJsonl<Row>(path.join(FIXTURES, 'finance_sec_search', 'example_rollouts.jsonl'));
    const tasks = readJsonl<Row>(data);
    // NeMo Gym records the judge's reply text, not the exchange: the prompt is the one our verify renders.
    const env = getEnvironment('finance_sec_search');
    const exchanges: JudgeExchange[] = [];
    for (const rollout of rollouts) {
      const task = tasks[rollout._ng_task_index as number]!;
      const output = [assistantMessage(rollout.judge_text as string)];
      await env.verify(env.taskSchema.parse(task), rollout.response as ResponseObject, {
        state: { storage: {} },
        judge: async (params) => {
          exchanges.push({ responses_create_params: { input: params.input }, response: { output } });
          return { id: 'j', object: 'response', output };
        },
      });
    }
    const { result, records } = await judgedRun('finance_sec_search', data, rollouts, exchanges);

    expect(result.metrics).toMatchObject({ rollouts_recorded: 5, rollouts_failed: 0 });
    expect(records.map((r) => r.record.reward)).toEqual(records.map((r) => r.recorded));
    expect(records.map((r) => r.record.judge_rating)).toEqual([2, 2, 2, 2, 2]);
  });
});

describe('HLE vision in a durable eval', () => {
  it('passes each question with its image through the gateway to the policy (a fake vLLM), and grades with the judge through the gateway', { timeout: 300_000 }, async () => {
    const config = path.resolve(import.meta.dirname, '../../configs/benchmarks/hle-vision.yaml');
    const flags = readConfigFile(config, EVAL_RUN_FLAG_NAMES);
    const envName = configuredEnvironmentName(flags.env as string, keyValueFlag(flags, 'env-option'));
    const inputFile = flags.input as string;
    const tasks = readJsonl<Row>(inputFile);
    // The policy answers each question in HLE's format; the judge says yes to the prompt our verify renders for it.
    const answers = tasks.map((t) => `Explanation: from the image.\nAnswer: ${String(t.expected_answer)}\nConfidence: 90%`);
    const env = getEnvironment(envName);
    const exchanges: JudgeExchange[] = [];
    const verdict = [assistantMessage('extracted_final_answer: as given\nReasoning: they match.\nJudgement: yes\nConfidence: 100')];
    for (const [i, row] of tasks.entries()) {
      await env.verify(
        env.taskSchema.parse(row),
        { id: 'r', object: 'response', output: [assistantMessage(answers[i]!)] },
        {
          state: null,
          judge: async (params) => (exchanges.push({ responses_create_params: { input: params.input }, response: { output: verdict } }), { id: 'j', object: 'response', output: verdict }),
        },
      );
    }
    const vllm = await startFakeVLLM();
    try {
      vllm.script(...answers.map((content) => ({ content })));
      const dir = await tempDir('gymflow-hle-vision-');
      const judgeReplay = path.join(dir, 'judge_replay.jsonl');
      writeJsonl(judgeReplay, exchanges);
      const runDir = path.join(dir, 'run');
      const result = await runInProcess(server, {
        ...runConfig({ runDir, envName, inputFile, concurrency: 1 }),
        model: parseModelSpec({ backend: 'vllm', model: 'fake-policy', base_url: vllm.url }),
        judgeModel: parseModelSpec({ backend: 'mock', env: envName, replay_files: [judgeReplay] }),
      });

      expect(result.metrics).toMatchObject({ rollouts_recorded: 4, rollouts_failed: 0, mean_reward: 1 });
      const calls = readdirSync(path.join(runDir, 'model_calls')).flatMap((f) => readJsonl<Row>(path.join(runDir, 'model_calls', f)));
      expect(calls.filter((c) => c.role === 'judge')).toHaveLength(4);
      // Each image question reached the policy with its image, exactly as the row gave it, beside its text.
      const chats = vllm.requests.filter((q) => q.path.endsWith('/chat/completions')).map((q) => JSON.stringify(q.body));
      expect(chats).toHaveLength(4);
      const images = tasks.flatMap((t) => JSON.stringify(t).match(/data:image\/png;base64,[A-Za-z0-9+/=]+/g) ?? []);
      expect(images).toHaveLength(3);
      for (const image of images) expect(chats.filter((c) => c.includes(image))).toHaveLength(1);
      for (const t of tasks) expect(chats.some((c) => c.includes(JSON.stringify(t.question).slice(1, -1)))).toBe(true);
    } finally {
      await vllm.close();
    }
  });
});

describe('vcqa in a durable eval', () => {
  it('plays the oracle through the real tools on the example trees, and grades with the judge replayed through the gateway', { timeout: 300_000 }, async () => {
    const data = path.resolve(import.meta.dirname, '../../src/environments/vcqa/data/example.jsonl');
    const env = getEnvironment('vcqa');
    const tasks = readJsonl<Row>(data);
    // The judge says YES to every criterion of a reference answer and NO to the oracle's non-answer; the
    // prompts are the ones our verify renders.
    const exchanges: JudgeExchange[] = [];
    for (const row of tasks) {
      for (const [answer, verdict] of [
        [row.reference_answer as string, 'YES'],
        ['I could not determine the answer from the repository.', 'NO'],
      ] as const) {
        const output = [assistantMessage(verdict)];
        await env.verify(
          env.taskSchema.parse(row),
          { id: 'r', object: 'response', output: [assistantMessage(answer)] },
          { state: { todos: '' }, judge: async (params) => (exchanges.push({ responses_create_params: { input: params.input }, response: { output } }), { id: 'j', object: 'response', output }) },
        );
      }
    }
    const dir = await tempDir('gymflow-vcqa-');
    const judgeReplay = path.join(dir, 'judge_replay.jsonl');
    writeJsonl(judgeReplay, exchanges);
    const play = (accuracy: number) =>
      runInProcess(server, {
        ...runConfig({ runDir: path.join(dir, `run-${accuracy}`), envName: 'vcqa', inputFile: data, model: { accuracy } }),
        judgeModel: parseModelSpec({ backend: 'mock', env: 'vcqa', replay_files: [judgeReplay] }),
      });
    const [right, wrong] = await Promise.all([play(1), play(0)]);

    expect(right.metrics).toMatchObject({ rollouts_recorded: 3, rollouts_failed: 0, mean_reward: 1 });
    expect(wrong.metrics).toMatchObject({ rollouts_recorded: 3, rollouts_failed: 0, mean_reward: 0 });
    // The tools ran on the materialized trees: list_dir saw the snapshot, bash the git history.
    for (const record of readJsonl<Row>(path.join(dir, 'run-1', 'rollouts.jsonl'))) {
      const outputs = (record.response as ResponseObject).output.flatMap((i) => (i.type === 'function_call_output' ? [JSON.parse(i.output as string)] : []));
      expect(outputs[0].result.text).toContain('README.md');
      const log = outputs[1].result.stdout.text as string;
      if ((record.verifier_metadata as { dataset_kind: string }).dataset_kind === 'githistory') expect(log).toContain('b182930 Remove per-key ttl from Store.put');
      else expect(log).toContain('not a git repository');
      expect(record.must_total).toBe(3);
    }
  });
});
