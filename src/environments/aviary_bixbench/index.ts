// NeMo Gym's aviary_bixbench: a BixBench question answered by writing a Jupyter notebook over the task's
// data capsule (edit_cell reruns the whole notebook in a real kernel, jailed), ended by submit_solution,
// whose answer an LLM judge compares with the ideal one (reward 1 for "yes").
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { FunctionTool, inputItems, type ConversationItem } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { Slots } from '../../util/slots';
import { defineEnvironment } from '../define';
import { notebookFile, withoutImages, type CellIndexArg } from '../notebook/cells';
import { runNotebook, type KernelSettings } from '../notebook/kernel';
import { SessionPool, type Session } from '../notebook/sessions';
import { readTree } from '../notebook/tree';
import type { NotebookCell } from '../notebook/view';
import { reply, type Environment } from '../types';
import { applyEdit, listWorkdir, NOTEBOOK, NOTEBOOK_VIEW, notebookView, stateMessage, taskMessage, toolException, WORKSPACE } from './episode';
import { grade } from './grade';
import { lookupProblem, problemSource, type BixBenchProblem } from './problems';

/** Aviary's tool definitions as NeMo Gym offers them (strict, from BixBenchEnv's docstrings). */
export const BIXBENCH_TOOLS: readonly FunctionTool[] = z.array(FunctionTool).parse(JSON.parse(readFileSync(new URL('./tools.json', import.meta.url), 'utf8')));

/** The settings a run may give. */
export const BixBenchSettings = z.object({
  /** The folder of extracted capsules, CapsuleData-<uuid> each (default: NeMo Gym's, $BIXBENCH_CAPSULE_DATA_LOCATION or ~/bixbench_capsules). */
  capsule_dir: z.string().min(1).optional(),
  /** BixBench's train split as JSONL (default: BixBench.jsonl in capsule_dir). */
  problems: z.string().min(1).optional(),
  /** Seconds a whole notebook run may take (Aviary's cell_execution_timeout, 600): past it the episode ends. */
  cell_execution_timeout: z.number().int().min(1).optional(),
  /** Notebook runs at once in this process. */
  concurrency: z.number().int().min(1).optional(),
  /** Address space of each process of a kernel's jail. */
  memory_limit_mb: z.number().int().min(256).optional(),
  /** A rollout's workspace is kept this long after its last tool call. */
  session_idle_secs: z.number().int().min(10).optional(),
  /** Runs the kernels without a jail, for machines without bubblewrap: the model's code can then read this machine's files and keys. */
  unsafe_no_isolation: z.boolean().optional(),
});
export type BixBenchSettings = z.infer<typeof BixBenchSettings>;

const BixBenchRow = TaskRow.extend({
  /** NeMo Gym's index into BixBench's train split. */
  task_idx: z.number().int().nonnegative(),
});

/** The row with the problem it points at, and the request NeMo Gym's aviary agent would send. */
export type BixBenchTask = z.infer<typeof BixBenchRow> & { bixbench: { problem: BixBenchProblem; capsule: string } };

export interface BixBenchEpisode {
  /** This process's key to the rollout's workspace (a new one after a restart is rebuilt from the rest). */
  session: string;
  cells: NotebookCell[];
  /** The notebook file has been written (Aviary saves it on the first edit). */
  saved: boolean;
  answer: string | null;
  /** submit_solution was called, or a notebook run timed out: Aviary's episode is over. */
  done: boolean;
  timed_out: boolean;
}

const EPISODE_OVER = 'The episode is over; no further tool calls are played.';

const EditArgs = z.object({ contents: z.string(), idx: z.union([z.number(), z.string(), z.boolean(), z.null()]) });
const SolutionArgs = z.object({ solution: z.string() });

function opening(problem: BixBenchProblem): ConversationItem[] {
  return [
    { type: 'message', role: 'user', content: taskMessage(problem.question) },
    { type: 'message', role: 'user', content: stateMessage([]) },
  ];
}

export function createAviaryBixbench(options: BixBenchSettings = {}): Environment<BixBenchTask, BixBenchEpisode> {
  const settings = BixBenchSettings.parse(options);
  const source = problemSource(settings);
  const kernel: KernelSettings = { isolation: settings.unsafe_no_isolation ? 'none' : 'bwrap', memoryBytes: (settings.memory_limit_mb ?? 8192) * 1024 ** 2 };
  const runTimeoutMs = (settings.cell_execution_timeout ?? 600) * 1000;
  const slots = new Slots(settings.concurrency ?? 2);
  const pool = new SessionPool({ at: WORKSPACE, idleMs: (settings.session_idle_secs ?? 900) * 1000, max: 64, jailed: kernel.isolation === 'bwrap' });

  const taskSchema = BixBenchRow.transform((row, ctx): BixBenchTask => {
    const found = lookupProblem(source, row.task_idx);
    if ('refused' in found) {
      ctx.addIssue({ code: 'custom', path: ['task_idx'], message: `aviary_bixbench task_idx ${row.task_idx}: ${found.refused}` });
      return z.NEVER;
    }
    const params = row.responses_create_params;
    // NeMo Gym's aviary agent appends the environment's opening messages to the row's input and offers only its tools.
    return { ...row, responses_create_params: { ...params, input: [...inputItems(params.input), ...opening(found.problem)], tools: [...BIXBENCH_TOOLS] }, bixbench: found };
  });

  /** The rollout's workspace: held, or made again from the capsule and the notebook as the state has it. */
  async function workspace(task: BixBenchTask, state: BixBenchEpisode): Promise<Session> {
    const held = pool.get(state.session);
    if (held) return held;
    const session = await pool.create(state.session, task.bixbench.capsule);
    await pool.writeFile(session, NOTEBOOK_VIEW, notebookView(state.cells));
    if (state.saved) await pool.writeFile(session, NOTEBOOK, notebookFile(state.cells));
    return session;
  }

  /** The step's reply: the tool's own, then the notebook as NeMo Gym's next observation shows it. */
  async function stepReply(session: Session, message: string, state: BixBenchEpisode) {
    await pool.writeFile(session, NOTEBOOK_VIEW, notebookView(state.cells));
    return reply(`${message}\n\n${stateMessage(state.cells)}`, state);
  }

  async function editCell({ contents, idx }: { contents: string; idx: CellIndexArg }, task: BixBenchTask, state: BixBenchEpisode) {
    if (state.done) return reply(EPISODE_OVER, state);
    const session = await workspace(task, state);
    const edit = applyEdit(state.cells, contents, idx);
    await pool.writeFile(session, NOTEBOOK, notebookFile(edit.cells));
    // Aviary runs the whole notebook after every edit (its Docker mode), the failed ones too.
    const release = await slots.take();
    const run = await runNotebook(session.folders, NOTEBOOK, kernel, runTimeoutMs).finally(release);
    let next: BixBenchEpisode = { ...state, cells: edit.cells, saved: true };
    let message = edit.message;
    if (run.status === 'done') next = { ...next, cells: run.cells.map((c) => ({ ...c, outputs: withoutImages(c.outputs) })) };
    else if (run.status === 'timeout') {
      // Aviary's message names its EXEC_TIMEOUT (300 s) whatever the limit was; the episode ends.
      message = toolException("TimeoutError('Notebook execution timed out after 300.0 seconds')");
      next = { ...next, done: true, timed_out: true };
    } else message = toolException(`ValueError('Error executing the notebook in Docker (exit code: ${run.exitCode ?? -1})')`);
    return stepReply(session, message, next);
  }

  return defineEnvironment<BixBenchTask, BixBenchEpisode>({
    name: 'aviary_bixbench',
    description:
      "BixBench data-analysis questions: write a Jupyter notebook over the task's data capsule (real kernel, jailed), then submit_solution; an LLM judge compares it with the ideal answer (Aviary).",
    taskSchema: taskSchema as unknown as z.ZodType<BixBenchTask>,
    requiresJudge: true,
    needsJail: true,
    needsDownload: ["BixBench's problems and data capsules (Hugging Face, futurehouse/BixBench): rows whose capsule is not in capsule_dir are refused"],
    configurable: { schema: BixBenchSettings, create: (given) => createAviaryBixbench({ ...settings, ...given }) },
    // The workspace is made by the first tool call that needs it: re-verifying a rollout seeds a session too.
    seedSession: () => ({ session: randomUUID(), cells: [], saved: false, answer: null, done: false, timed_out: false }),
    tools: {
      edit_cell: {
        args: EditArgs,
        run: (args: z.infer<typeof EditArgs>, { task, state }) => editCell(args, task, state),
      },
      list_workdir: {
        args: z.object({}),
        async run(_args: Record<string, never>, { task, state }) {
          if (state.done) return reply(EPISODE_OVER, state);
          const session = await workspace(task, state);
          return stepReply(session, listWorkdir(readTree(session.folders.workspace)), state);
        },
      },
      submit_solution: {
        args: SolutionArgs,
        async run({ solution }: z.infer<typeof SolutionArgs>, { state }) {
          if (state.done) return reply(EPISODE_OVER, state);
          const next = { ...state, answer: solution, done: true };
          await pool.close(state.session);
          // Aviary grades here and answers "Correct" or "Incorrect"; the judge is the run's, asked in verify.
          return reply(`Solution submitted; it is graded when the episode ends.\n\n${stateMessage(next.cells)}`, next);
        },
      },
    },
    async verify(task, _response, { state, judge }) {
      const { question, ideal } = task.bixbench.problem;
      const base = { question, ideal, submitted_solution: state.answer, cells: state.cells.length };
      if (state.answer === null) return { ...base, reward: 0, failure_reason: state.timed_out ? 'notebook_timeout' : 'no_solution_submitted' };
      const verdict = await grade(judge, question, ideal, state.answer);
      return { ...base, reward: verdict.correct ? 1 : 0, judge_reply: verdict.reply, ...(verdict.correct ? {} : { failure_reason: 'judged_incorrect' }) };
    },
  });
}

export const aviaryBixbench = createAviaryBixbench();
