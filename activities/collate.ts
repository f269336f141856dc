// Collation: validate the input rows, expand nothing yet (repeats are indices), and write the run's
// tasks.jsonl once. A continued or resumed run reuses the file it already has.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EnvRef } from '../src/environments/ref';
import { resolveEnvironment } from '../src/environments/registry';
import type { AgentKind } from '../src/environments/types';
import { GymError } from '../src/errors';
import { writeFileAtomic } from '../src/store/jsonl';
import { INPUT_OBJECT, ObjectRunFiles } from '../src/store/object/run-objects';
import { RunStore } from '../src/store/run-store';
import { loadTasks } from '../src/tasks/load';
import { runActivity } from './envelope';

export interface CollateInput {
  runDir: string;
  /** The run's object store (`--store`): tasks.jsonl is written there, and the input read from there when not here. */
  store?: string;
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
  if (input.store) return collateIntoStore({ ...input, store: input.store }, new ObjectRunFiles(input.store));
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

/**
 * The same into the run's object store: the first collate's tasks.jsonl wins (any two write the same rows).
 * A worker without the client's input file reads the copy the client put beside the run.
 */
async function collateIntoStore(input: CollateInput & { store: string }, files: ObjectRunFiles): Promise<Collated> {
  const env = resolveEnvironment(input.env);
  if (!(await files.store.exists('tasks.jsonl'))) {
    let inputFile = input.inputFile;
    let scratch: string | undefined;
    if (!existsSync(inputFile)) {
      const copy = await files.store.getBytes(INPUT_OBJECT);
      if (!copy)
        throw new GymError('NOT_FOUND', `${input.store} has no ${INPUT_OBJECT} and this worker has no ${input.inputFile}: start the run with gym eval run --store, which puts its input there`);
      scratch = await mkdtemp(path.join(os.tmpdir(), 'gym-collate-'));
      inputFile = path.join(scratch, path.basename(input.inputFile));
      await writeFile(inputFile, copy);
    }
    try {
      const { rows } = await loadTasks(inputFile, env, input.limit);
      const collated = rows.map((row, i) => ({ ...row, _ng_task_index: row._ng_task_index ?? i }));
      await files.store.putIfAbsent('tasks.jsonl', collated.map((r) => JSON.stringify(r) + '\n').join(''));
    } finally {
      if (scratch) await rm(scratch, { recursive: true, force: true });
    }
  }
  const taskCount = await files.taskCount();
  return { taskCount, rolloutCount: taskCount * input.numRepeats, agent: env.agent ?? 'simple_agent' };
}
