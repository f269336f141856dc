// A rollout's episode as stored in its work folder: the seeded session state, each model turn and
// each tool output. Activities rebuild the conversation from these files, so the workflow history
// only ever carries step numbers.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ConversationItem, FunctionCallItem, FunctionCallOutputItem, Usage } from '../src/schemas/responses';
import { functionCalls } from '../src/schemas/responses';
import type { RunStore } from '../src/store/run-store';

export interface SeedFile {
  state: unknown;
  /** What a turn-based environment puts before the first model turn (its first observation). */
  items?: ConversationItem[];
}

/** A turn-based environment's reply to one model turn. */
export interface EnvStepFile {
  items: ConversationItem[];
  state: unknown;
  done: boolean;
}

export interface ModelTurnFile {
  callId: string;
  responseId: string;
  model: string | null;
  output: ConversationItem[];
  usage: Usage | null;
  incomplete: boolean;
}

export interface ToolFile {
  item: FunctionCallOutputItem;
  status: number;
  state: unknown;
}

export interface Transcript {
  state: unknown;
  seedItems: ConversationItem[];
  turns: { step: number; model: ModelTurnFile; tools: ToolFile[]; env?: EnvStepFile }[];
}

export const seedPath = (store: RunStore, id: string) => path.join(store.workDir(id), 'seed.json');
export const modelTurnPath = (store: RunStore, id: string, step: number) => path.join(store.workDir(id), `step-${step}.model.json`);
export const toolPath = (store: RunStore, id: string, step: number, index: number) =>
  path.join(store.workDir(id), `step-${step}.tool-${index}.json`);
export const envStepPath = (store: RunStore, id: string, step: number) => path.join(store.workDir(id), `step-${step}.env.json`);
export const verifyPath = (store: RunStore, id: string) => path.join(store.workDir(id), 'verify.json');

/** Reads every finished step before `beforeStep` (all steps when omitted), and the latest state. */
export async function readTranscript(store: RunStore, id: string, beforeStep = Infinity): Promise<Transcript> {
  const seed = await store.readJson<SeedFile>(seedPath(store, id));
  if (!seed) throw new Error(`rollout ${id} has no seeded session in ${store.workDir(id)}`);
  let state = seed.state;
  const turns: Transcript['turns'] = [];
  for (let step = 1; step < beforeStep && existsSync(modelTurnPath(store, id, step)); step++) {
    const model = (await store.readJson<ModelTurnFile>(modelTurnPath(store, id, step)))!;
    const tools: ToolFile[] = [];
    for (let index = 0; index < functionCalls(model.output).length; index++) {
      const tool = await store.readJson<ToolFile>(toolPath(store, id, step, index));
      if (!tool) break;
      tools.push(tool);
      state = tool.state;
    }
    const env = await store.readJson<EnvStepFile>(envStepPath(store, id, step));
    if (env) state = env.state;
    turns.push({ step, model, tools, env });
  }
  return { state, seedItems: seed.items ?? [], turns };
}

export function historyItems(transcript: Transcript): ConversationItem[] {
  return [...transcript.seedItems, ...transcript.turns.flatMap((t) => [...t.model.output, ...t.tools.map((x) => x.item), ...(t.env?.items ?? [])])];
}

export function callAt(turn: ModelTurnFile, index: number): FunctionCallItem {
  const call = functionCalls(turn.output)[index];
  if (!call) throw new Error(`model turn ${turn.callId} has no function call #${index}`);
  return call;
}

/** Usage summed over turns, as NeMo Gym's agent reports it for the whole episode. */
export function totalUsage(transcript: Transcript): Usage | null {
  const usages = transcript.turns.map((t) => t.model.usage).filter((u): u is Usage => !!u);
  if (!usages.length) return null;
  const sum = (f: (u: Usage) => number) => usages.reduce((a, u) => a + f(u), 0);
  return { input_tokens: sum((u) => u.input_tokens), output_tokens: sum((u) => u.output_tokens), total_tokens: sum((u) => u.total_tokens) };
}
