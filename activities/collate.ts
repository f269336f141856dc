// Collation: validate the input rows, expand nothing yet (repeats are indices), and write the run's
// tasks.jsonl once. A continued or resumed run reuses the file it already has.
import { existsSync } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { getEnvironment } from '../src/environments/registry';
import type { AgentKind } from '../src/environments/types';
import { isGymError } from '../src/errors';
import { writeFileAtomic } from '../src/store/jsonl';
import { RunStore } from '../src/store/run-store';
import { loadTasks } from '../src/tasks/load';
import { runActivity } from './envelope';

export interface CollateInput {
  runDir: string;
  inputFile: string;
  envName: string;
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

async function collate(input: CollateInput): Promise<Collated> {
  const store = new RunStore(input.runDir);
  await store.init();
  if (!existsSync(store.tasksPath)) {
    try {
      const { rows } = await loadTasks(input.inputFile, getEnvironment(input.envName), input.limit);
      const collated = rows.map((row, i) => ({ ...row, _ng_task_index: row._ng_task_index ?? i }));
      await writeFileAtomic(store.tasksPath, collated.map((r) => JSON.stringify(r) + '\n').join(''));
    } catch (e) {
      if (isGymError(e)) throw ApplicationFailure.create({ type: 'BadInput', message: [e.message, ...(e.details ?? [])].join('\n'), nonRetryable: true });
      throw e;
    }
  }
  const taskCount = await store.taskCount();
  return { taskCount, rolloutCount: taskCount * input.numRepeats, agent: getEnvironment(input.envName).agent ?? 'simple_agent' };
}
