// conversational_tool_use_simulation end to end in a durable eval on a real Temporal server: the policy is the
// mock replaying a conversation turn by turn, the customer, the tools and the judge are a second mock model
// (the run's judge model) replaying the replies NeMo Gym's own server was given for the same prompts in the
// differential cases. The record must carry NeMo Gym's reward, labels and trajectory.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage } from '../../src/environments/example_single_tool_call';
import { parseModelSpec } from '../../src/gateway/spec';
import type { ConversationItem } from '../../src/schemas/responses';
import { readJsonl, writeJsonl } from '../environments/nemo_fixtures';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

type Row = Record<string, any>;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

const cases = readJsonl<Row>(path.join(import.meta.dirname, '../environments/conversational_tool_use_simulation.cases.jsonl'));

/**
 * Each policy turn as its own recording, keyed by the whole conversation before it (the mock replays one turn per
 * prefix). The turns carry ids and token ids, which the mock keeps, so the history it is sent is the recorded one.
 */
function policyTurns(c: Row): Row[] {
  const rows: Row[] = [];
  let n = 0;
  const stamp = (item: ConversationItem) =>
    item.type === 'function_call_output' || (item as { role?: string }).role === 'user'
      ? item
      : { ...item, id: `item_${n++}`, prompt_token_ids: [1], generation_token_ids: [2], generation_log_probs: [-0.5] };
  const transcript = (c.transcript as ConversationItem[]).map(stamp);
  n = 0;
  const policy = (c.policy as ConversationItem[][]).map((turn) => turn.map(stamp));
  let at = 1; // the customer's opening message
  for (const turn of policy) {
    rows.push({ responses_create_params: { input: [...c.task.responses_create_params.input, ...transcript.slice(0, at)] }, response: { output: turn } });
    at += turn.length;
    while (at < transcript.length && (transcript[at]!.type === 'function_call_output' || (transcript[at] as { role?: string }).role === 'user')) at++;
  }
  return rows;
}

/** Every simulator and judge call NeMo Gym's server made, answered with the reply it was given. */
function simulatorReplies(c: Row): Row[] {
  const queues: Record<string, (string | null)[]> = { customer: [...c.customer], tool: [...c.tool], judge: [...c.judge] };
  return (c.asked as { role: string; input: unknown }[]).map(({ role, input }) => ({ responses_create_params: { input }, response: { output: [assistantMessage(queues[role]!.shift()!)] } }));
}

describe('conversational_tool_use_simulation in a durable eval', () => {
  it.each(['complete, all judged fine', 'tool result judged wrong'])(
    '%s: NeMo Gym reward, labels and trajectory',
    async (name) => {
      const c = cases.find((x) => x.name === name)!;
      const dir = await tempDir('gymflow-ctu-');
      const inputFile = path.join(dir, 'tasks.jsonl');
      const policyReplay = path.join(dir, 'policy_replay.jsonl');
      const simulatorReplay = path.join(dir, 'simulator_replay.jsonl');
      writeJsonl(inputFile, [c.task]);
      writeJsonl(policyReplay, policyTurns(c));
      writeJsonl(simulatorReplay, simulatorReplies(c));
      const runDir = path.join(dir, 'run');
      const envName = 'conversational_tool_use_simulation';
      const config = {
        ...runConfig({ runDir, envName, inputFile, model: { replay_files: [policyReplay] } }),
        judgeModel: parseModelSpec({ backend: 'mock', env: envName, replay_files: [simulatorReplay] }),
      };
      const result = await runInProcess(server, config);
      expect(result.metrics).toMatchObject({ rollouts_recorded: 1, rollouts_failed: 0 });
      const [record] = readJsonl<Row>(path.join(runDir, 'rollouts.jsonl'));
      expect(record).toMatchObject({
        reward: c.verdict.reward,
        failure_labels: c.verdict.failure_labels,
        trajectory_invalid_reasons: c.verdict.trajectory_invalid_reasons,
        terminal_state: c.verdict.terminal_state,
        instance_config: c.verdict.instance_config,
      });
      const view = (m: Row) => ({ type: m.type, source: m.source, text: m.text ?? null, execution_result: m.execution_result ?? null, reward: m.reward ?? m.verification_result?.reward ?? null });
      expect((record!.result.trajectory.messages as Row[]).map(view)).toEqual((c.verdict.messages as Row[]).map(view));
      expect(record!.response.output.map((i: Row) => i.type)).toEqual((c.transcript as Row[]).map((i) => i.type ?? 'message'));
      // Every customer, tool and judge call is in the run's call log under the rollout, beside the policy's.
      const calls = readdirSync(path.join(runDir, 'model_calls')).flatMap((f) => readJsonl<Row>(path.join(runDir, 'model_calls', f)));
      expect(calls.filter((x) => x.role === 'judge')).toHaveLength(c.asked.length);
      expect(calls.filter((x) => x.role !== 'judge')).toHaveLength(c.policy.length);
    },
    120_000,
  );
});
