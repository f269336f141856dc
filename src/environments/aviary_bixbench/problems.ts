// BixBench's problems as NeMo Gym's rows point at them: `task_idx` indexes BixBench's train split (rows of
// capsule_uuid, question, ideal), whose data capsule is the folder CapsuleData-<capsule_uuid>.
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ProblemFileError, readProblems } from '../notebook/problems';

/** One row of BixBench's train split, as NeMo Gym reads it (other columns are kept but not read). */
export const BixBenchProblem = z.looseObject({
  capsule_uuid: z
    .string()
    .min(1)
    .refine((v) => !/[/\\]/.test(v) && v !== '.' && v !== '..', 'must name one folder (CapsuleData-<capsule_uuid>), without slashes'),
  question: z.string(),
  ideal: z.string(),
});
export type BixBenchProblem = z.infer<typeof BixBenchProblem>;

export interface ProblemSource {
  /** The folder of extracted capsules (NeMo Gym's BIXBENCH_CAPSULE_DATA_LOCATION). */
  capsuleDir: string;
  /** The train split as JSONL, one problem a line in the split's order. */
  problems: string;
}

/** NeMo Gym's capsule location: $BIXBENCH_CAPSULE_DATA_LOCATION, else ~/bixbench_capsules. */
export function defaultCapsuleDir(): string {
  return process.env.BIXBENCH_CAPSULE_DATA_LOCATION ?? '~/bixbench_capsules';
}

const expanded = (p: string) => path.resolve(p.startsWith('~/') ? path.join(homedir(), p.slice(2)) : p);

/** Where the settings say the problems and capsules are: NeMo Gym's location unless told otherwise. */
export function problemSource(settings: { capsule_dir?: string; problems?: string }): ProblemSource {
  const capsuleDir = expanded(settings.capsule_dir ?? defaultCapsuleDir());
  return { capsuleDir, problems: expanded(settings.problems ?? path.join(capsuleDir, 'BixBench.jsonl')) };
}

/** A problem and its capsule folder, or why the row cannot be played here. */
export type Lookup = { problem: BixBenchProblem; capsule: string } | { refused: string };

const HF_NOTE = "BixBench's problems and capsules come from Hugging Face (futurehouse/BixBench), which Gymflow does not download";

export function lookupProblem(source: ProblemSource, taskIdx: number): Lookup {
  if (!existsSync(source.problems)) {
    return {
      refused: `the BixBench problem list ${source.problems} is not here: ${HF_NOTE}; export its train split as JSONL there, or give --env-option problems=<file> (and capsule_dir=<folder>)`,
    };
  }
  let problems: BixBenchProblem[];
  try {
    problems = readProblems(source.problems, BixBenchProblem);
  } catch (e) {
    if (e instanceof ProblemFileError) return { refused: e.message };
    throw e;
  }
  const problem = problems[taskIdx];
  if (!problem) return { refused: `${source.problems} has ${problems.length} problems, none at index ${taskIdx}` };
  const capsule = path.join(source.capsuleDir, `CapsuleData-${problem.capsule_uuid}`);
  if (!existsSync(capsule) || !statSync(capsule).isDirectory()) {
    return { refused: `its data capsule CapsuleData-${problem.capsule_uuid} is not in ${source.capsuleDir}: ${HF_NOTE}; extract the capsule there` };
  }
  return { problem, capsule };
}
