// PinchBench (NeMo Gym's responses_api_agents/pinchbench): a model as the brain of an OpenClaw agent on
// real-world tasks (files, calendar, writing), each graded by PinchBench's own checks — automated criteria,
// an LLM judge, or a weighted mix — for a continuous reward in [0, 1]. The agent is a harness (OpenClaw, or
// any other: `--agent openclaw --sandbox docker`) working in a folder seeded with the task's files; verify
// rebuilds that folder from the episode's write/edit calls and grades it, so recorded rollouts re-verify.
import { z } from 'zod';
import type { ResponseObject } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import type { VerifyContext } from '../types';
import { averageScores, GRADERS, type Scores } from './graders';
import { judgeTask } from './judge';
import { TASKS, taskDefinition, type TaskDefinition } from './tasks';
import { replayWorkspace } from './workspace';

const TaskId = z.string().min(1);

/**
 * NeMo Gym's row: the prompt (for reading only) and `verifier_metadata.task_id`, the authoritative selector;
 * NeMo Gym also takes a top-level `task_id`. An id Gymflow has no definition for is refused when the task
 * file is read (NeMo Gym's sandbox would fail the rollout).
 */
export const PinchBenchTask = TaskRow.extend({
  verifier_metadata: z.looseObject({ task_id: TaskId.nullish() }).nullish(),
  task_id: TaskId.nullish(),
}).superRefine((row, ctx) => {
  const id = row.verifier_metadata?.task_id ?? row.task_id;
  if (!id) ctx.addIssue({ code: 'custom', path: ['verifier_metadata', 'task_id'], message: 'a PinchBench row needs verifier_metadata.task_id (or task_id)' });
  else if (!TASKS.has(id)) ctx.addIssue({ code: 'custom', path: ['verifier_metadata', 'task_id'], message: `unknown PinchBench task "${id}"; Gymflow ships ${[...TASKS.keys()].join(', ')}` });
});
export type PinchBenchTask = z.infer<typeof PinchBenchTask>;

export const taskIdOf = (task: PinchBenchTask): string => (task.verifier_metadata?.task_id ?? task.task_id)!;

const Settings = z.object({
  /**
   * The day "next Tuesday" is counted from (`YYYY-MM-DD`): PinchBench's calendar check uses the day it
   * grades; re-verifying an old rollout needs the day it ran. Default: today (UTC).
   */
  today: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')
    .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), 'not a calendar date')
    .optional(),
});

interface Grade {
  score: number;
  breakdown: Scores;
  notes: string;
  /** Set when the judge's reply held no score. */
  judgeUnreadable?: boolean;
  judge?: { prompt: string; reply: string };
}

async function gradeTask(def: TaskDefinition, response: ResponseObject, ctx: VerifyContext<unknown>, today: Date, files: ReadonlyMap<string, string>): Promise<Grade> {
  const automated = (): Grade => {
    const grader = GRADERS[def.id];
    if (!grader) return { score: 0, breakdown: {}, notes: 'No automated grading code found' };
    const scores = grader({ files, response, today });
    return { score: averageScores(scores), breakdown: scores, notes: '' };
  };
  const judged = async (): Promise<Grade> => {
    const v = await judgeTask(ctx, def, response);
    return { score: v.total ?? 0, breakdown: v.scores, notes: v.notes, judgeUnreadable: v.total === null, judge: { prompt: v.prompt, reply: v.reply } };
  };
  if (def.grading_type === 'automated') return automated();
  if (def.grading_type === 'llm_judge') return judged();
  // hybrid: PinchBench's _combine_grades (weights default to half each; a non-positive total weight resets them).
  const auto = automated();
  const llm = await judged();
  let a = def.grading_weights?.automated ?? 0.5;
  let l = def.grading_weights?.llm_judge ?? 0.5;
  if (a + l <= 0) a = l = 0.5;
  return {
    score: (auto.score * a + llm.score * l) / (a + l),
    breakdown: {
      ...Object.fromEntries(Object.entries(auto.breakdown).map(([k, v]) => [`automated.${k}`, v])),
      ...Object.fromEntries(Object.entries(llm.breakdown).map(([k, v]) => [`llm_judge.${k}`, v])),
    },
    notes: [auto.notes, llm.notes].filter(Boolean).join(' | '),
    ...(llm.judgeUnreadable ? { judgeUnreadable: true } : {}),
    ...(llm.judge ? { judge: llm.judge } : {}),
  };
}

function failureReason(grade: Grade, def: TaskDefinition): string | null {
  if (grade.score >= 1) return null;
  if (grade.judgeUnreadable) return 'judge_reply_unreadable';
  const b = grade.breakdown;
  if (b.agent_responded === 0) return 'no_response';
  if (b.file_created === 0 || b['automated.file_created'] === 0) return 'output_file_missing';
  return def.grading_type === 'automated' ? 'criteria_failed' : 'below_full_marks';
}

export function createPinchBench(options: z.input<typeof Settings> = {}) {
  const settings = Settings.parse(options);
  return defineEnvironment<PinchBenchTask>({
    name: 'pinchbench',
    description: "PinchBench: an agent harness (OpenClaw) does real-world tasks in a seeded workspace; reward in [0, 1] from PinchBench's automated checks, its LLM judge, or both.",
    taskSchema: PinchBenchTask,
    // Two of the five shipped tasks are judge-graded.
    requiresJudge: true,
    // PinchBench's 147-task set lives in its skill repository (cloned by NeMo Gym's image build); Gymflow ships five.
    needsDownload: ['the other 142 PinchBench tasks (github.com/pinchbench/skill); live web search (Brave/Tavily) for research tasks'],
    evaluationOnly: 'PinchBench is a benchmark (NeMo Gym ships it as benchmark and example data only).',
    configurable: { schema: Settings, create: createPinchBench },
    reverifyMode: 'stateless',
    workspaceFiles: (task) => Object.fromEntries(taskDefinition(taskIdOf(task)).workspace_files.map((f) => [f.path, f.content])),
    async verify(task, response, ctx) {
      const def = taskDefinition(taskIdOf(task));
      const today = settings.today ? new Date(`${settings.today}T00:00:00Z`) : new Date();
      const workspace = replayWorkspace(def, response);
      const grade = await gradeTask(def, response, ctx, today, workspace.files);
      return {
        reward: grade.score,
        task_id: def.id,
        grading_type: def.grading_type,
        grading_breakdown: grade.breakdown,
        grading_notes: grade.notes,
        status: 'success',
        workspace_files: [...workspace.files.keys()].sort(),
        // What the workspace could not be rebuilt from: the grade saw the files without these calls' effects.
        unreplayed_calls: workspace.unreplayed,
        ...(grade.judge ? { judge_prompt: grade.judge.prompt, judge_reply: grade.judge.reply } : {}),
        failure_reason: failureReason(grade, def),
      };
    },
  });
}

export const pinchbench = createPinchBench();
