// PinchBench's task definitions (github.com/pinchbench/skill, MIT): each task's prompt, the files its
// workspace starts with, how it is graded and the judge's rubric. NeMo Gym's rows carry only the task id and
// load the rest from the skill inside its sandbox image; Gymflow ships the definitions in data/tasks.json.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { GymError } from '../../errors';

const WorkspaceFile = z.strictObject({ path: z.string().min(1), content: z.string() });

export const TaskDefinition = z.strictObject({
  id: z.string().min(1),
  name: z.string(),
  grading_type: z.enum(['automated', 'llm_judge', 'hybrid']),
  timeout_seconds: z.number().positive(),
  /** Only hybrid tasks: how the automated and judge scores are mixed (PinchBench's default is half each). */
  grading_weights: z.strictObject({ automated: z.number(), llm_judge: z.number() }).partial().optional(),
  workspace_files: z.array(WorkspaceFile),
  prompt: z.string().min(1),
  expected_behavior: z.string(),
  grading_criteria: z.array(z.string()),
  llm_judge_rubric: z.string().nullable(),
});
export type TaskDefinition = z.infer<typeof TaskDefinition>;

const TASKS_FILE = fileURLToPath(new URL('./data/tasks.json', import.meta.url));

function load(): Map<string, TaskDefinition> {
  const parsed = z.array(TaskDefinition).safeParse(JSON.parse(readFileSync(TASKS_FILE, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GymError('BAD_INPUT', `${TASKS_FILE}: ${issue.path.join('.')}: ${issue.message}`);
  }
  return new Map(parsed.data.map((t) => [t.id, t]));
}

/** The tasks Gymflow can grade, by PinchBench task id. */
export const TASKS: ReadonlyMap<string, TaskDefinition> = load();

export function taskDefinition(id: string): TaskDefinition {
  const def = TASKS.get(id);
  if (!def) throw new GymError('BAD_TASK', `unknown PinchBench task_id "${id}"; known: ${[...TASKS.keys()].join(', ')}`);
  return def;
}
