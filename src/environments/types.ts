// The Environment interface: what every environment (NeMo Gym's "resources server") provides —
// a task_data schema, tools, and verify. Environments are written with defineEnvironment (define.ts).
import type { z } from 'zod';
import type { Sandbox } from '../sandboxes/provider';
import type { ConversationItem, ResponseCreateParams, ResponseObject } from '../schemas/responses';
import type { TaskRow } from '../schemas/task';
import type { VerifyResult } from '../schemas/verify';

/** What a tool call returns: an HTTP-like status and a JSON body, sent back to the model as text. */
export interface ToolReply<State> {
  status: number;
  body: unknown;
  state: State;
}

export interface ToolContext<Task, State> {
  task: Task;
  state: State;
}

export interface Tool<Task, State, Args = unknown> {
  /** Validates the arguments object; a failure is answered like FastAPI's 422, never thrown. */
  args: z.ZodType<Args>;
  run(args: Args, ctx: ToolContext<Task, State>): Promise<ToolReply<State>> | ToolReply<State>;
}

/** Asks a judge model through the gateway; environments that grade with an LLM use it in verify. */
export type JudgeCall = (params: ResponseCreateParams) => Promise<ResponseObject>;

export interface VerifyContext<State> {
  state: State;
  judge?: JudgeCall;
}

export interface Environment<Task extends TaskRow = TaskRow, State = null> {
  name: string;
  description: string;
  /** Validates a task row: the row must carry everything seed, tools and verify need. */
  taskSchema: z.ZodType<Task>;
  /** `stateless` environments can be re-verified from a stored rollout alone. */
  reverifyMode: 'stateless' | 'stateful';
  /**
   * How a rollout drives it: NeMo Gym's simple agent loop (the default), or one model call whose
   * tool calls are graded but never executed (NeMo Gym's non-executing agent).
   */
  agent?: AgentKind;
  /** True when verify cannot grade without a judge model (the run must name one). */
  requiresJudge?: boolean;
  /**
   * What of the environment needs a download or an outside service these machines do not reach (a model, an
   * API): those parts are reported unavailable in its results, never faked. Shown by `gym env list`.
   */
  needsDownload?: readonly string[];
  /** True when part of an episode (running the model's code or a shell) happens in a bubblewrap jail: the worker needs `bwrap`. */
  needsJail?: boolean;
  /** True when an episode drives a desktop VM over its server's HTTP API (OSWorld's): the run must name one. */
  needsDesktop?: boolean;
  /**
   * Why the environment is for evaluation only, when it is: its data is a benchmark with no training split
   * (NeMo Gym ships it only as benchmark and example data), so training on its rollouts would contaminate
   * the benchmark. Shown by `gym env list`; `gym eval export-training` warns.
   */
  evaluationOnly?: string;
  /**
   * The environment's settings (NeMo Gym's per-server config keys), for environments that have any:
   * `schema` validates options given for a run, `create` builds the environment with them applied
   * over its defaults.
   */
  configurable?: { schema: z.ZodObject; create(options: Record<string, any>): AnyEnvironment };
  /**
   * Turn-based environments (NeMo Gym's gymnasium agent) answer each model turn themselves instead of
   * through tools: `reset` gives the first observation, `step` the reply to one turn.
   */
  reset?(task: Task, ctx: TurnContext): Promise<TurnStart<State>> | TurnStart<State>;
  step?(task: Task, state: State, turn: readonly ConversationItem[], ctx: TurnContext): Promise<TurnReply<State>> | TurnReply<State>;
  seedSession(task: Task): Promise<State> | State;
  /** Set for environments whose tasks an external harness plays in a sandbox (`--agent <harness>`). */
  sandboxed?: SandboxedTasks<Task>;
  /**
   * The files a harness's working folder starts with on a text task (relative path → content), for tasks
   * whose verify grades what the harness wrote there from the episode (pinchbench). Default: an empty folder.
   */
  workspaceFiles?(task: Task): Record<string, string>;
  tools: Record<string, Tool<Task, State, any>>;
  verify(task: Task, response: ResponseObject, ctx: VerifyContext<State>): Promise<VerifyResult> | VerifyResult;
}

/**
 * A task as a repository in a sandbox: what the harness starts from and is asked, and how what it left
 * there is graded (the task's own tests, run in the same sandbox).
 */
export interface SandboxedTasks<Task> {
  /** The repository's folder inside the sandbox (the harness's working directory); per task where tasks name their own (a Dockerfile's WORKDIR). */
  workdir: string | ((task: Task) => string);
  /**
   * Folders outside the workdir that the task's own scripts write (Terminal-Bench's `/tests` and
   * `/logs/verifier`): each starts empty and writable, in a sandbox whose root is otherwise read-only.
   */
  scratch?: readonly string[];
  /** The repository's files by path relative to `workdir`. */
  repository(task: Task): Record<string, string>;
  prompt(task: Task): string;
  /**
   * Readies a sandbox once the repository's files are in it: `agent` before the harness starts, `verifier`
   * for each fresh sandbox verify asks for (committing the files as the task's base commit, a history scrub).
   */
  setup?(task: Task, sandbox: Sandbox, phase: SandboxPhase): Promise<void>;
  /** Grades what the harness left in `sandbox`; `sandboxes` makes more, for graders that test in a fresh one. */
  verify(task: Task, sandbox: Sandbox, sandboxes?: VerifySandboxes): Promise<VerifyResult>;
}

export type SandboxPhase = 'agent' | 'verifier';

export interface VerifySandboxes {
  /**
   * A new sandbox made as the harness's was (its image, workdir, repository, empty scratch folders, `setup`
   * as a verifier) with no network at all: where NeMo Gym's SWE servers test a captured patch. It is
   * destroyed with the harness's.
   */
  fresh(): Promise<Sandbox>;
}

export type AgentKind = 'simple_agent' | 'non_executing_agent' | 'gymnasium_agent';

/**
 * What a turn-based environment may use while it answers: its own model, the run's judge model, for
 * environments that simulate the other side of the conversation with one (NeMo Gym's simulator roles).
 */
export interface TurnContext {
  model?: JudgeCall;
}

/** A turn-based episode's start: its state and the items the conversation opens with. */
export interface TurnStart<State> {
  state: State;
  items: ConversationItem[];
}

/** What a turn-based environment appends to the conversation, and its state after. */
export interface TurnReply<State> {
  state: State;
  items: ConversationItem[];
  done: boolean;
}

export type AnyEnvironment = Environment<any, any>;

/** A tool reply with the session state unchanged: the common case for stateless tools. */
export function reply<State>(body: unknown, state: State, status = 200): ToolReply<State> {
  return { status, body, state };
}

/**
 * Thrown by verify when a judge model could not give a verdict (call failed, no reply). The run
 * routes the rollout to the sidecar as `judge_failed` instead of scoring it 0.
 */
export class JudgeError extends Error {
  override name = 'JudgeError';
}
