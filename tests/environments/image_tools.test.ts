// image_tools against NeMo Gym 0.7.0: its recorded PivotRL rollouts score as recorded with every verify field,
// and hand-picked and generated rollouts get, in each of its modes, the verdicts its own verify gave them
// (image_tools.cases.py).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createImageTools, imageTools, ImageToolsTask } from '../../src/environments/image_tools';
import { imageToolsOracle } from '../../src/environments/image_tools/oracle';
import type { ConversationItem, ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { FIXTURES, joinToTasks, readJsonl } from './nemo_fixtures';

const DATA = path.resolve(import.meta.dirname, '../../src/environments/image_tools/data');
const FIELDS = [
  'reward',
  'model_output',
  'tool_name_match',
  'rollout_tool_name',
  'expected_tool_name',
  'target_match',
  'argument_score',
  'argument_detail',
  'tool_family',
  'num_rollout_tool_calls',
] as const;

describe('image_tools conformance with NeMo Gym recorded rollouts', () => {
  const tasks = readJsonl<{ responses_create_params: { input: unknown } }>(path.join(DATA, 'example.jsonl'));
  const rollouts = readJsonl<Record<string, unknown> & { responses_create_params: { input: unknown }; response: ResponseObject }>(path.join(FIXTURES, 'image_tools', 'example_rollouts.jsonl'));
  joinToTasks(rollouts, tasks).forEach(({ rollout, task }, i) => {
    it(`rollout #${i} reproduces reward ${String(rollout.reward)} and its verify fields`, async () => {
      const result = (await imageTools.verify(ImageToolsTask.parse(task), rollout.response, { state: null })) as Record<string, unknown>;
      for (const field of FIELDS) expect(result[field], field).toEqual(rollout[field]);
      expect(result.pivot_failure).toBe(rollout.failure_reason);
    });
  });
});

interface Case {
  mode: Record<string, unknown>;
  task: Record<string, unknown>;
  text: string;
  reasoning: string | null;
  verdict: Record<string, unknown>;
}

describe('image_tools against NeMo Gym verify on generated cases', () => {
  const cases = readJsonl<Case>(path.join(import.meta.dirname, 'image_tools.cases.jsonl'));
  const envs = new Map<string, ReturnType<typeof createImageTools>>();
  it(`agrees on all ${cases.length} verdicts and their fields`, async () => {
    const disagreements: unknown[] = [];
    for (const c of cases) {
      const key = JSON.stringify(c.mode);
      if (!envs.has(key)) envs.set(key, createImageTools(c.mode));
      const output: ConversationItem[] = [];
      if (c.reasoning !== null) output.push({ type: 'reasoning', id: 'rs', summary: [], content: [{ type: 'reasoning_text', text: c.reasoning }] } as unknown as ConversationItem);
      output.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: c.text }] } as ConversationItem);
      const task = ImageToolsTask.parse({ responses_create_params: { input: [{ role: 'user', content: 'Q?' }] }, ...c.task });
      const ours = (await envs.get(key)!.verify(task, { id: 'r', object: 'response', output }, { state: null })) as Record<string, unknown>;
      const mine = { ...Object.fromEntries(FIELDS.map((f) => [f, ours[f]])), failure_reason: ours.pivot_failure };
      if (JSON.stringify(mine) !== JSON.stringify(c.verdict)) disagreements.push({ case: c, ours: mine });
    }
    expect(disagreements.slice(0, 5)).toEqual([]);
    const reasons = new Set(cases.map((c) => c.verdict.failure_reason));
    for (const r of ['none', 'tool_name_mismatch', 'target_mismatch', 'argument_below_threshold', 'no_tool_call_in_rollout', 'expected_action_invalid', 'unknown_error']) expect(reasons).toContain(r);
  });
});

describe('image_tools oracle', () => {
  it("the oracle's demonstrated call earns 1 and its wrong call 0", async () => {
    const task = ImageToolsTask.parse(readJsonl(path.join(DATA, 'example.jsonl'))[0]);
    for (const correct of [true, false]) {
      const output = imageToolsOracle(task, [], { correct, rng: seededRng(3) });
      const result = await imageTools.verify(task, { id: 'r', object: 'response', output }, { state: null });
      expect(result.reward).toBe(correct ? 1 : 0);
      if (!correct) expect(result.failure_reason).toBe('tool_name_mismatch');
    }
  });
});
