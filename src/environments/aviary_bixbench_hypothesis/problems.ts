// BixBench-Hypothesis problems as NeMo Gym's rows point at them: `task_idx` indexes hypotest's problem list
// (its problem_jsonl), whose data capsule is capsule_dir/input_data_path, else capsule_dir/CapsuleData-<id>.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ProblemFileError, readProblems } from '../notebook/problems';

const UUID = /^(?:urn:uuid:)?\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;

/** hypotest's ProblemInstance (`answer` is whether the hypothesis is accepted, `max_points` the rubric's total). */
export const HypothesisProblem = z.looseObject({
  id: z
    .string()
    .regex(UUID, 'must be a UUID')
    // Python's str(UUID): lower-case, dashed; the capsule folder is named with it.
    .transform((id) => UUID.exec(id)!.slice(1).join('-').toLowerCase()),
  hypothesis: z.string(),
  protocol: z.string(),
  answer: z.boolean(),
  rubric: z.string(),
  max_points: z.number().int().positive(),
  input_data_path: z.string().default(''),
  metadata: z.record(z.string(), z.unknown()).default({}),
  nb_primary_language: z.string().nullish(),
});
export type HypothesisProblem = z.infer<typeof HypothesisProblem>;

export interface ProblemSource {
  problemJsonl?: string;
  capsuleDir?: string;
}

export type Lookup = { problem: HypothesisProblem; capsule: string } | { refused: string };

const DATA_NOTE = "BixBench-Hypothesis's problems and capsules come from Edison Scientific's release (Hugging Face), which Gymflow does not download";

/** The problem at `taskIdx` and the folder its workspace is copied from, or why the row cannot be played. */
export function lookupProblem(source: ProblemSource, taskIdx: number, forcePython: boolean): Lookup {
  if (!source.problemJsonl || !source.capsuleDir) {
    return { refused: `no problem list: ${DATA_NOTE}; give --env-option problem_jsonl=<file> and capsule_dir=<folder>` };
  }
  let problems: HypothesisProblem[];
  try {
    problems = readProblems(path.resolve(source.problemJsonl), HypothesisProblem);
  } catch (e) {
    if (e instanceof ProblemFileError) return { refused: e.message };
    throw e;
  }
  const problem = problems[taskIdx];
  if (!problem) return { refused: `${source.problemJsonl} has ${problems.length} problems, none at index ${taskIdx}` };
  const language = (problem.nb_primary_language ?? 'python').toLowerCase();
  if (!forcePython && language === 'r') return { refused: `problem ${problem.id} asks for an R notebook, and only a Python kernel is installed (leave force_python on)` };
  const capsuleDir = path.resolve(source.capsuleDir);
  const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();
  // hypotest's order: the problem's own path, then the folder named after it.
  let capsule = path.join(capsuleDir, problem.input_data_path);
  if (!isDir(capsule)) capsule = path.join(capsuleDir, `CapsuleData-${problem.id}`);
  const inside = path.relative(capsuleDir, capsule);
  if (inside.startsWith('..') || path.isAbsolute(inside)) return { refused: `problem ${problem.id}: input_data_path ${JSON.stringify(problem.input_data_path)} leads outside capsule_dir` };
  if (!isDir(capsule)) return { refused: `its data capsule (${problem.input_data_path || `CapsuleData-${problem.id}`}) is not in ${capsuleDir}: ${DATA_NOTE}; put it there` };
  return { problem, capsule };
}
