// The notebook environments end to end in a durable eval on a real Temporal server, over NeMo Gym's example rows
// and the shipped stand-in capsules: the mock policy plays the notebook tools (its cells run in the jailed Jupyter
// kernel), and the judge is a second mock model answering, through the gateway, the prompts for the answers the
// kernel's real outputs lead to. The oracle's right answers must earn full marks, its wrong ones nothing.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgePrompt } from '../../src/environments/aviary_bixbench/grade';
import { notebookView, rubricPrompt } from '../../src/environments/aviary_bixbench_hypothesis/episode';
import { assistantMessage } from '../../src/environments/example_single_tool_call';
import { configuredEnvironmentName } from '../../src/environments/names';
import { parseModelSpec } from '../../src/gateway/spec';
import type { Row } from '../../src/reverify';
import type { JudgeExchange } from '../../src/reverify/judge';
import { readJsonl, writeJsonl } from '../environments/nemo_fixtures';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const ENVS = path.resolve(import.meta.dirname, '../../src/environments');
const BIXBENCH = path.join(ENVS, 'aviary_bixbench/data');
const HYPOTHESIS = path.join(ENVS, 'aviary_bixbench_hypothesis/data');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

const exchange = (prompt: string, reply: string): JudgeExchange => ({ responses_create_params: { input: [{ role: 'user', content: prompt }] }, response: { output: [assistantMessage(reply)] } });

/** Runs the first three example rows with the oracle right (accuracy 1) and wrong (0), the judge replaying `exchanges`. */
async function rightAndWrong(envName: string, inputFile: string, exchanges: JudgeExchange[]) {
  const dir = await tempDir('gymflow-notebook-e2e-');
  const judgeReplay = path.join(dir, 'judge_replay.jsonl');
  writeJsonl(judgeReplay, exchanges);
  const play = async (accuracy: number) => {
    const runDir = path.join(dir, `run-${accuracy}`);
    const result = await runInProcess(server, {
      ...runConfig({ runDir, envName, inputFile, limit: 3, concurrency: 3, model: { accuracy } }),
      judgeModel: parseModelSpec({ backend: 'mock', env: envName, replay_files: [judgeReplay] }),
    });
    return { result, records: readJsonl<Row>(path.join(runDir, 'rollouts.jsonl')).sort((a, b) => (a._ng_task_index as number) - (b._ng_task_index as number)) };
  };
  return Promise.all([play(1), play(0)]);
}

const outputsOf = (record: Row) => JSON.stringify((record.response as { output: unknown[] }).output);
/** Text as it appears in `outputsOf`: a tool's reply is a JSON string, inside the JSON of the output. */
const twiceEncoded = (text: string) => JSON.stringify(JSON.stringify(text).slice(1, -1)).slice(1, -1);

describe('aviary_bixbench in a durable eval', () => {
  it('pays the solutions the kernel computed from the capsules, and nothing for wrong ones', { timeout: 170_000 }, async () => {
    const envName = configuredEnvironmentName('aviary_bixbench', { capsule_dir: path.join(BIXBENCH, 'standin') });
    const problems = readJsonl<{ question: string; ideal: string }>(path.join(BIXBENCH, 'standin/BixBench.jsonl')).slice(0, 3);
    // The answers worked out by hand from the stand-in CSVs: the judge says yes only to what the kernel must print.
    expect(problems.map((p) => p.ideal)).toEqual(['24.0', 'GATA1', '3']);
    const exchanges = problems.flatMap((p) => [exchange(judgePrompt(p.question, p.ideal, p.ideal), 'YES'), exchange(judgePrompt(p.question, p.ideal, `not ${p.ideal}`), 'NO')]);
    const [right, wrong] = await rightAndWrong(envName, path.join(BIXBENCH, 'example.jsonl'), exchanges);

    expect(right.result.metrics).toMatchObject({ rollouts_recorded: 3, rollouts_failed: 0, mean_reward: 1 });
    expect(wrong.result.metrics).toMatchObject({ rollouts_recorded: 3, rollouts_failed: 0, mean_reward: 0 });
    right.records.forEach((record, i) => {
      expect(record).toMatchObject({ task_idx: i, reward: 1, submitted_solution: problems[i]!.ideal, judge_reply: 'YES' });
      // NeMo Gym's row is recorded as it came; the episode holds the notebook the kernel ran.
      expect(record.responses_create_params).toMatchObject({ input: [] });
      expect(outputsOf(record)).toContain(twiceEncoded(`### Output 0:\n\`\`\`\n${problems[i]!.ideal}\n`));
    });
    expect(wrong.records.map((r) => [r.reward, r.failure_reason])).toEqual(problems.map(() => [0, 'judged_incorrect']));
  });
});

describe('aviary_bixbench_hypothesis in a durable eval', () => {
  it('pays full rubric marks for the right conclusions over the notebook the kernel ran, and none for wrong ones', { timeout: 170_000 }, async () => {
    const standin = path.join(HYPOTHESIS, 'standin');
    const envName = configuredEnvironmentName('aviary_bixbench_hypothesis', { problem_jsonl: path.join(standin, 'problems.jsonl'), capsule_dir: path.join(standin, 'capsules') });
    const problems = readJsonl<{ hypothesis: string; answer: boolean; rubric: string; oracle_code: string; oracle_answer: string }>(path.join(standin, 'problems.jsonl')).slice(0, 3);
    // What each stand-in problem's cell prints, worked out by hand from the CSVs.
    const printed = [
      "{('WT', 'galactose'): 0.41, ('WT', 'glucose'): 0.82, ('dGAL4', 'galactose'): 0.06, ('dGAL4', 'glucose'): 0.8}\n",
      "{('WT', 'galactose'): 0.41, ('WT', 'glucose'): 0.82, ('dGAL4', 'galactose'): 0.06, ('dGAL4', 'glucose'): 0.8}\n",
      "{'A': 62.0, 'B': 75.0} r=0.34\n",
    ];
    const exchanges = problems.flatMap((p, i) => {
      const notebook = notebookView([{ cell_type: 'code', source: p.oracle_code, outputs: [{ output_type: 'stream', name: 'stdout', text: printed[i] }], execution_count: 1 }]);
      const wrongVerdict = p.answer ? 'The hypothesis is rejected.' : 'The hypothesis is supported.';
      const prompt = (answer: string) => rubricPrompt({ hypothesis: p.hypothesis, accepted: p.answer, rubric: p.rubric, notebook, answer });
      return [exchange(prompt(p.oracle_answer), 'Both criteria are met.\n<score>2</score>'), exchange(prompt(wrongVerdict), 'The conclusion is wrong.\n<score>0</score>')];
    });
    const [right, wrong] = await rightAndWrong(envName, path.join(HYPOTHESIS, 'example.jsonl'), exchanges);

    expect(right.result.metrics).toMatchObject({ rollouts_recorded: 3, rollouts_failed: 0, mean_reward: 1 });
    expect(wrong.result.metrics).toMatchObject({ rollouts_recorded: 3, rollouts_failed: 0, mean_reward: 0 });
    right.records.forEach((record, i) => {
      expect(record).toMatchObject({ task_idx: i, reward: 1, raw_score: 2, max_score: 2, submitted_answer: problems[i]!.oracle_answer });
      expect(record.agent_ref).toMatchObject({ name: 'bbh_aviary_agent' });
      expect(outputsOf(record)).toContain(twiceEncoded(`[Cell #0] [stdout]\n${printed[i]}`));
    });
    expect(wrong.records.map((r) => [r.reward, r.raw_score, r.failure_reason])).toEqual(problems.map(() => [0, 0, 'rubric_points_missed']));
  });
});
