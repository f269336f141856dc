// Test helpers for replaying NeMo Gym's recorded rollouts: JSONL loading, the rollout → task join, and a
// judge that answers with the recorded judge replies while keeping what it was asked.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ResponseCreateParams, ResponseObject } from '../../src/schemas/responses';
import type { JudgeCall } from '../../src/environments/types';

export const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym');

/** Rows as a JSONL file, one JSON object a line. */
export function writeJsonl(file: string, rows: readonly unknown[]): void {
  writeFileSync(file, rows.map((r) => JSON.stringify(r) + '\n').join(''));
}

export function readJsonl<T = Record<string, unknown>>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

interface WithInput {
  responses_create_params: { input: unknown };
  _ng_task_index?: number;
}

/** The input's messages as [role, content] pairs: recorded rows add fields (`type`) and reorder keys. */
function inputKey(input: unknown): string {
  if (typeof input === 'string') return JSON.stringify(input);
  return JSON.stringify((input as { role?: string; content?: unknown }[]).map((m) => [m.role, m.content]));
}

/** Recorded rows drop undeclared task fields, so each is joined to its task by index or identical input. */
export function joinToTasks<R extends WithInput, T extends WithInput>(rollouts: R[], tasks: T[]): { rollout: R; task: T }[] {
  return rollouts.map((rollout) => {
    const byIndex = typeof rollout._ng_task_index === 'number' ? tasks[rollout._ng_task_index] : undefined;
    const key = inputKey(rollout.responses_create_params.input);
    const task = byIndex ?? tasks.find((t) => inputKey(t.responses_create_params.input) === key);
    if (!task) throw new Error(`no task for rollout with input ${key.slice(0, 120)}`);
    return { rollout, task };
  });
}

/** A judge that returns the given replies in order and records every request. */
export function replayJudge(replies: ResponseObject[]): { judge: JudgeCall; sent: ResponseCreateParams[] } {
  const sent: ResponseCreateParams[] = [];
  const judge: JudgeCall = async (params) => {
    sent.push(params);
    const reply = replies[sent.length - 1];
    if (!reply) throw new Error(`judge asked ${sent.length} times, only ${replies.length} replies recorded`);
    return reply;
  };
  return { judge, sent };
}

/** A judge whose reply is one assistant message with the given text. */
export function textJudge(...texts: string[]): { judge: JudgeCall; sent: ResponseCreateParams[] } {
  return replayJudge(texts.map((text, i) => judgeReply(text, i)));
}

export function judgeReply(text: string, i = 0): ResponseObject {
  return {
    id: `resp_judge_${i}`,
    object: 'response',
    output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
  };
}

export const failingJudge: JudgeCall = async () => {
  throw new Error('503 Service Unavailable');
};

/** A whole episode whose only output is one assistant message. */
export function answerResponse(text: string): ResponseObject {
  return {
    id: 'resp_test',
    object: 'response',
    output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
  };
}
