// NeMo Gym's BixBench-Hypothesis (aviary_bbh, hypotest's InterpreterEnv): test a hypothesis on the task's
// data capsule by running Python cells in a live Jupyter kernel (jailed), then submit_answer; an LLM judge
// scores the notebook and the answer against the problem's rubric (reward: score / max points).
import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { FunctionTool, inputItems, outputText, type ConversationItem } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { truthy } from '../../python/values';
import { Slots } from '../../util/slots';
import { defineEnvironment } from '../define';
import { cellIndex, newCodeCell, pyPosition, withoutImages, type CellIndexArg } from '../notebook/cells';
import { LiveKernel, type KernelSettings } from '../notebook/kernel';
import { SessionPool, type Session } from '../notebook/sessions';
import { readTree } from '../notebook/tree';
import type { NotebookCell, NotebookOutput } from '../notebook/view';
import { JudgeError, reply, type Environment, type JudgeCall } from '../types';
import { toolException } from '../aviary_bixbench/episode';
import { listDirReply, maxFilesOf, notebookView, parseScore, rubricPrompt, rubricReward, runCellReply, systemPrompt, taskMessage, TIME_EXPIRED, timeMessage, WORKSPACE } from './episode';
import { lookupProblem, type HypothesisProblem } from './problems';

/** hypotest's tools as NeMo Gym offers them (strict, from their docstrings, in InterpreterEnv.reset's order). */
export const HYPOTHESIS_TOOLS: readonly FunctionTool[] = z.array(FunctionTool).parse(JSON.parse(readFileSync(new URL('./tools.json', import.meta.url), 'utf8')));

/** NeMo Gym's bundled config (config_bundled.yaml) where it sets a value, else hypotest's defaults. */
const DEFAULTS = { cell_execution_timeout: 180, job_timeout: 1800, warn_submit_threshold: 1200, force_submit_threshold: 600, max_steps: 30 };

export const HypothesisSettings = z
  .object({
    /** hypotest's problem list: ProblemInstance rows, one a line. */
    problem_jsonl: z.string().min(1).optional(),
    /** The folder of data capsules. */
    capsule_dir: z.string().min(1).optional(),
    /** Every problem gets a Python kernel whatever language it names (hypotest's force_python, on in NeMo Gym's config). */
    force_python: z.boolean().optional(),
    /** The reward is the rubric score over its maximum (on), else the raw score. */
    normalize_reward: z.boolean().optional(),
    /** Seconds one cell may run. */
    cell_execution_timeout: z.number().int().min(1).optional(),
    /** The episode's time budget in seconds; here the kernel's execution time counts against it. */
    job_timeout: z.number().int().min(1).optional(),
    /** Seconds left at which the model is warned to submit. */
    warn_submit_threshold: z.number().int().min(0).optional(),
    /** Seconds left at which cells are refused and the model is told to submit. */
    force_submit_threshold: z.number().int().min(0).optional(),
    /** Steps after which every reply orders a submission (hypotest's max_steps: from step max_steps - 1 on). */
    max_steps: z.number().int().min(1).optional(),
    /** Cells running at once in this process. */
    concurrency: z.number().int().min(1).optional(),
    memory_limit_mb: z.number().int().min(256).optional(),
    /** A rollout's kernel and workspace are kept this long after its last tool call. */
    session_idle_secs: z.number().int().min(10).optional(),
    /** Runs the kernels without a jail, for machines without bubblewrap: the model's code can then read this machine's files and keys. */
    unsafe_no_isolation: z.boolean().optional(),
  })
  .refine((s) => (s.warn_submit_threshold ?? DEFAULTS.warn_submit_threshold) > (s.force_submit_threshold ?? DEFAULTS.force_submit_threshold), {
    message: 'warn_submit_threshold must be greater than force_submit_threshold (both are seconds before the time runs out)',
    path: ['warn_submit_threshold'],
  });
export type HypothesisSettings = z.infer<typeof HypothesisSettings>;

const HypothesisRow = TaskRow.extend({ task_idx: z.number().int().nonnegative() });
export type HypothesisTask = z.infer<typeof HypothesisRow> & { hypothesis: { problem: HypothesisProblem; capsule: string } };

export interface HypothesisEpisode {
  /** This process's key to the rollout's kernel and workspace. */
  session: string;
  cells: NotebookCell[];
  /** The code the kernel has run since it (re)started, in order: replayed into a new kernel when this process has none. */
  history: string[];
  /** Cells added since the kernel (re)started (hypotest's execution count). */
  executions: number;
  /** Tool calls so far (hypotest counts steps, one per model turn). */
  steps: number;
  /** Seconds the kernel spent running cells: the time that counts against job_timeout. */
  kernel_seconds: number;
  answer: string | null;
  /** The notebook as it was when the answer was submitted: what the rubric judge reads. */
  notebook: string | null;
  done: boolean;
}

const KERNEL_LIFETIME_MS = 6 * 3600_000;
const JUDGE_ATTEMPTS = 3;

const RunCellArgs = z.object({ code: z.string(), idx: z.union([z.number(), z.string(), z.boolean(), z.null()]).optional() });
const ListDirArgs = z.object({
  directory: z.string().optional(),
  max_files: z.union([z.number(), z.string(), z.boolean()]).optional(),
  show_hidden: z.union([z.boolean(), z.number(), z.string(), z.null()]).optional(),
});
const AnswerArgs = z.object({ answer: z.string() });

/** pathlib's `Path(base) / p` as text: empty and "." parts dropped, ".." kept. */
function pathJoin(base: string, p: string): string {
  const parts = (p.startsWith('/') ? p : `${base}/${p}`).split('/').filter((part) => part !== '' && part !== '.');
  return `/${parts.join('/')}`;
}

/** The output a cell gets when the kernel died running it (hypotest's kernel server reports the exception so). */
function deadKernel(e: Error): NotebookOutput {
  return { output_type: 'error', ename: 'RuntimeError', evalue: e.message, traceback: [`RuntimeError: ${e.message}`] };
}

function sameCode(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((code, i) => code === b[i]);
}

export function createAviaryBixbenchHypothesis(options: HypothesisSettings = {}): Environment<HypothesisTask, HypothesisEpisode> {
  const settings = HypothesisSettings.parse(options);
  const limits = {
    cell: settings.cell_execution_timeout ?? DEFAULTS.cell_execution_timeout,
    job: settings.job_timeout ?? DEFAULTS.job_timeout,
    warn: settings.warn_submit_threshold ?? DEFAULTS.warn_submit_threshold,
    force: settings.force_submit_threshold ?? DEFAULTS.force_submit_threshold,
    maxSteps: settings.max_steps ?? DEFAULTS.max_steps,
  };
  const source = { problemJsonl: settings.problem_jsonl, capsuleDir: settings.capsule_dir };
  const forcePython = settings.force_python ?? true;
  const normalize = settings.normalize_reward ?? true;
  const kernelSettings: KernelSettings = { isolation: settings.unsafe_no_isolation ? 'none' : 'bwrap', memoryBytes: (settings.memory_limit_mb ?? 8192) * 1024 ** 2 };
  const slots = new Slots(settings.concurrency ?? 2);
  const pool = new SessionPool({ at: WORKSPACE, idleMs: (settings.session_idle_secs ?? 900) * 1000, max: 32, jailed: kernelSettings.isolation === 'bwrap' });

  const opening = (problem: HypothesisProblem, capsule: string): ConversationItem[] => [
    { type: 'message', role: 'system', content: systemPrompt(limits.job) },
    { type: 'message', role: 'user', content: taskMessage(problem.hypothesis, problem.protocol) },
    // InterpreterEnv.reset always shows the fresh workspace's listing.
    { type: 'message', role: 'user', content: listDirReply(readTree(capsule), 20, false) },
  ];

  const taskSchema = HypothesisRow.transform((row, ctx): HypothesisTask => {
    const found = lookupProblem(source, row.task_idx, forcePython);
    if ('refused' in found) {
      ctx.addIssue({ code: 'custom', path: ['task_idx'], message: `aviary_bixbench_hypothesis task_idx ${row.task_idx}: ${found.refused}` });
      return z.NEVER;
    }
    const params = row.responses_create_params;
    return {
      ...row,
      responses_create_params: { ...params, input: [...inputItems(params.input), ...opening(found.problem, found.capsule)], tools: [...HYPOTHESIS_TOOLS] },
      hypothesis: found,
    };
  });

  /**
   * The rollout's session as its state has it: held when its kernel ran exactly the state's code, else made
   * again (a fresh copy of the capsule, a new kernel, the code replayed) when a kernel is needed or ever ran.
   */
  async function sessionFor(task: HypothesisTask, state: HypothesisEpisode, needKernel: boolean): Promise<Session> {
    const held = pool.get(state.session);
    const fresh = held && held.executed.length === 0 && state.history.length === 0 && !held.kernel;
    if (held && sameCode(held.executed, state.history) && (held.kernel?.alive || fresh)) {
      if (needKernel && !held.kernel) held.kernel = await LiveKernel.start(held.folders, kernelSettings, KERNEL_LIFETIME_MS);
      return held;
    }
    const session = await pool.create(state.session, task.hypothesis.capsule);
    if (!needKernel && state.history.length === 0) return session;
    session.kernel = await LiveKernel.start(session.folders, kernelSettings, KERNEL_LIFETIME_MS);
    for (const code of state.history) {
      await session.kernel.execute(code, limits.cell);
      session.executed.push(code);
    }
    return session;
  }

  const remaining = (state: HypothesisEpisode) => Math.trunc(limits.job - state.kernel_seconds);

  /** A step's reply as NeMo Gym's next observation has it: the tool's, then hypotest's time and step orders. */
  function stepReply(text: string, state: HypothesisEpisode) {
    const notes = [timeMessage(remaining(state), limits), state.steps >= limits.maxSteps - 1 ? TIME_EXPIRED : null].filter((n): n is string => n !== null);
    return reply([text, ...notes].join('\n\n'), state);
  }

  async function runCell({ code, idx }: { code: string; idx?: CellIndexArg }, task: HypothesisTask, state: HypothesisEpisode) {
    const counted = { ...state, steps: state.steps + 1 };
    const left = remaining(state);
    if (left <= limits.force) return stepReply(TIME_EXPIRED, counted);
    const session = await sessionFor(task, state, true);
    const release = await slots.take();
    const run = await session
      .kernel!.execute(code, Math.min(limits.cell, left - limits.force))
      .catch((e: Error) => ({ outputs: [deadKernel(e)], error: true, seconds: 0, died: true }))
      .finally(release);
    // Code that took the kernel down is not replayed into the next one: it would take that down too.
    if (run.died) await pool.close(state.session);
    else session.executed.push(code);
    const ran = { ...counted, history: run.died ? state.history : [...state.history, code], kernel_seconds: state.kernel_seconds + run.seconds };
    const outputs = withoutImages(run.outputs);
    const i = cellIndex(idx);
    if (i === null || i >= state.cells.length) {
      const cells = [...state.cells, newCodeCell(code, outputs, state.executions + 1)];
      return stepReply(runCellReply(cells.length - 1, run.outputs), { ...ran, cells, executions: state.executions + 1 });
    }
    const at = pyPosition(i, state.cells.length);
    // hypotest updates the cell after running the code: a cell before the first is an IndexError then.
    if (at === null) return stepReply(toolException("IndexError('list index out of range')"), ran);
    const cells = state.cells.map((c, j) => (j === at ? { ...c, source: code, outputs } : c));
    return stepReply(runCellReply(i, run.outputs), { ...ran, cells });
  }

  async function listDir(args: z.infer<typeof ListDirArgs>, task: HypothesisTask, state: HypothesisEpisode) {
    const counted = { ...state, steps: state.steps + 1 };
    const session = await sessionFor(task, state, false);
    const shown = pathJoin(WORKSPACE, args.directory ?? '.');
    const inside = path.posix.relative(WORKSPACE, path.posix.resolve(shown));
    const notADir = stepReply(`Path is not a directory: ${args.directory?.startsWith('/') ? path.posix.resolve(shown) : shown}`, counted);
    if (inside.startsWith('..') || path.posix.isAbsolute(inside)) return notADir;
    const root = realpathSync(session.folders.workspace);
    const target = path.join(root, inside);
    let real: string;
    try {
      real = realpathSync(target);
    } catch {
      return notADir;
    }
    // A symlink the model's code made may point anywhere on this machine: only the workspace is listed.
    if ((real !== root && !real.startsWith(root + path.sep)) || !lstatSync(real).isDirectory()) return notADir;
    return stepReply(listDirReply(readTree(real), maxFilesOf(args.max_files), truthy(args.show_hidden ?? false)), counted);
  }

  async function judgeScore(task: HypothesisTask, state: HypothesisEpisode, judge: JudgeCall | undefined) {
    const { problem } = task.hypothesis;
    if (!judge) throw new JudgeError('aviary_bixbench_hypothesis grades with an LLM judge (its rubric model): give the run one (--judge-model)');
    const prompt = rubricPrompt({ hypothesis: problem.hypothesis, accepted: problem.answer, rubric: problem.rubric, notebook: state.notebook ?? '', answer: state.answer ?? '' });
    const replies: string[] = [];
    // hypotest asks again, with the same prompt, when the reply is empty or has no readable score.
    for (let attempt = 0; attempt < JUDGE_ATTEMPTS; attempt++) {
      let text: string;
      try {
        text = outputText((await judge({ input: [{ role: 'user', content: prompt }] })).output);
      } catch (e) {
        throw new JudgeError(`the rubric judge call failed: ${(e as Error).message}`);
      }
      replies.push(text);
      const raw = text ? parseScore(text) : null;
      if (raw !== null) return { raw, replies };
    }
    return { raw: null, replies };
  }

  return defineEnvironment<HypothesisTask, HypothesisEpisode>({
    name: 'aviary_bixbench_hypothesis',
    description:
      "BixBench-Hypothesis: test a hypothesis on the task's data capsule with Python cells in a live Jupyter kernel (jailed), then submit_answer; an LLM judge scores notebook and answer by the rubric (score / max points).",
    taskSchema: taskSchema as unknown as z.ZodType<HypothesisTask>,
    requiresJudge: true,
    needsJail: true,
    needsDownload: ["BixBench-Hypothesis's problems and data capsules (Edison Scientific's release): rows whose problem or capsule is not given are refused"],
    configurable: { schema: HypothesisSettings, create: (given) => createAviaryBixbenchHypothesis({ ...settings, ...given }) },
    seedSession: () => ({ session: randomUUID(), cells: [], history: [], executions: 0, steps: 0, kernel_seconds: 0, answer: null, notebook: null, done: false }),
    tools: {
      run_cell: {
        args: RunCellArgs,
        run: (args: z.infer<typeof RunCellArgs>, { task, state }) => (state.done ? reply('Episode already finished.', state) : runCell(args, task, state)),
      },
      reset_kernel: {
        args: z.object({}),
        async run(_args: Record<string, never>, { state }) {
          if (state.done) return reply('Episode already finished.', state);
          const held = pool.get(state.session);
          if (held?.kernel?.alive && sameCode(held.executed, state.history)) {
            await held.kernel.reset();
            held.executed = [];
          }
          return stepReply('Kernel reset successfully.', { ...state, steps: state.steps + 1, cells: [], history: [], executions: 0 });
        },
      },
      submit_answer: {
        args: AnswerArgs,
        async run({ answer }: z.infer<typeof AnswerArgs>, { state }) {
          if (state.done) return reply('Episode already finished.', state);
          const next = { ...state, steps: state.steps + 1, answer, done: true, notebook: notebookView(state.cells) };
          await pool.close(state.session);
          // hypotest scores here and answers "Correct answer!" or "Incorrect answer."; the judge is the run's, asked in verify.
          return stepReply('Answer submitted; it is graded when the episode ends.', next);
        },
      },
      list_dir: {
        args: ListDirArgs,
        run: (args: z.infer<typeof ListDirArgs>, { task, state }) => (state.done ? reply('Episode already finished.', state) : listDir(args, task, state)),
      },
    },
    async verify(task, _response, { state, judge }) {
      const { problem } = task.hypothesis;
      const base = { problem_id: problem.id, hypothesis: problem.hypothesis, accepted: problem.answer, max_score: problem.max_points, submitted_answer: state.answer };
      if (state.answer === null) return { ...base, reward: 0, raw_score: null, failure_reason: 'no_answer_submitted' };
      const { raw, replies } = await judgeScore(task, state, judge);
      // hypotest's scoring fails after its retries: the episode keeps no reward.
      if (raw === null) return { ...base, reward: 0, raw_score: null, judge_replies: replies, failure_reason: 'judge_score_unreadable' };
      const reward = rubricReward(raw, problem.max_points, normalize);
      const full = raw === BigInt(problem.max_points);
      return { ...base, reward, raw_score: Number(raw), judge_replies: replies, ...(full ? {} : { failure_reason: 'rubric_points_missed' }) };
    },
  });
}

export const aviaryBixbenchHypothesis = createAviaryBixbenchHypothesis();
