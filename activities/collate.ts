// Collation: validate the input rows, expand nothing yet (repeats are indices), and write the run's
// tasks.jsonl once. A continued or resumed run reuses the file it already has.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { EnvRef } from '../src/environments/ref';
import { resolveEnvironment } from '../src/environments/registry';
import type { AgentKind } from '../src/environments/types';
import { writeFileAtomic } from '../src/store/jsonl';
import { RunStore } from '../src/store/run-store';
import { loadTasks } from '../src/tasks/load';
import { runActivity } from './envelope';

export interface CollateInput {
  runDir: string;
  inputFile: string;
  env: EnvRef;
  limit?: number;
  numRepeats: number;
}

export interface Collated {
  taskCount: number;
  rolloutCount: number;
  agent: AgentKind;
}

export function collateRun(input: CollateInput): Promise<Collated> {
  return runActivity(() => collate(input));
}

export async function collate(input: CollateInput): Promise<Collated> {
  const store = new RunStore(input.runDir);
  await store.init();
  await mkdir(path.join(input.runDir, 'work'), { recursive: true });
  const env = resolveEnvironment(input.env);
  if (!existsSync(store.tasksPath)) {
    const { rows } = await loadTasks(input.inputFile, env, input.limit);
    const collated = rows.map((row, i) => ({ ...row, _ng_task_index: row._ng_task_index ?? i }));
    await writeFileAtomic(store.tasksPath, collated.map((r) => JSON.stringify(r) + '\n').join(''));
  }
  const taskCount = await store.taskCount();
  return { taskCount, rolloutCount: taskCount * input.numRepeats, agent: env.agent ?? 'simple_agent' };
}
