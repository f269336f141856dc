// OSWorld's reward path (DesktopEnv.reset's setup and DesktopEnv.evaluate): a task's setup and postconfig steps
// sent to the desktop server, then its evaluator's getters read the desktop and its metric scores what they read.
// Only the getters and metrics that work on text are here; a task needing another is refused before it is played.
import { z } from 'zod';
import { GymError } from '../../errors';
import type { CommandResult, Desktop } from './desktop';

const SetupStep = z.looseObject({ type: z.string(), parameters: z.record(z.string(), z.unknown()).default({}) });
export type SetupStep = z.infer<typeof SetupStep>;

const GetterConfig = z.looseObject({ type: z.string() });
type GetterConfig = z.infer<typeof GetterConfig>;

/** One metric (func a string) or several (func a list, result/expected/options lists of the same length). */
export const Evaluator = z.looseObject({
  func: z.union([z.string(), z.array(z.string()).min(1)]),
  conj: z.enum(['and', 'or']).optional(),
  result: z.union([GetterConfig, z.array(GetterConfig.nullable())]).optional(),
  expected: z.union([GetterConfig, z.array(GetterConfig.nullable())]).nullish(),
  options: z.union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()).nullable())]).optional(),
  postconfig: z.array(SetupStep).optional(),
});
export type Evaluator = z.infer<typeof Evaluator>;

/** OSWorld's task specification, passed whole to the desktop as DesktopEnv.reset(task_config) receives it. */
export const OSWorldTask = z.looseObject({
  id: z.string().min(1),
  instruction: z.string(),
  snapshot: z.string().optional(),
  config: z.array(SetupStep).default([]),
  evaluator: Evaluator,
  proxy: z.boolean().optional(),
});
export type OSWorldTask = z.infer<typeof OSWorldTask>;

/** What setup and postconfig placeholders are filled with (SetupController's screen size and password). */
export interface SetupContext {
  clientPassword: string;
  screenWidth: number;
  screenHeight: number;
}

export const SETUP_TYPES = ['launch', 'execute', 'command', 'sleep', 'open', 'activate_window', 'close_window', 'download'] as const;
export const GETTERS = ['rule', 'default_search_engine', 'vm_command_line', 'vm_command_error', 'vm_terminal_output', 'accessibility_tree'] as const;
export const METRICS = ['exact_match', 'match_in_list', 'is_in_list', 'check_include_exclude', 'infeasible'] as const;

/** A task the evaluator cannot play, named: Gymflow has no port of the setup step, getter or metric it uses. */
export function unsupportedParts(task: OSWorldTask): string[] {
  const problems: string[] = [];
  const steps = [...task.config.map((s) => ['config', s] as const), ...(task.evaluator.postconfig ?? []).map((s) => ['postconfig', s] as const)];
  for (const [where, step] of steps) if (!(SETUP_TYPES as readonly string[]).includes(step.type)) problems.push(`${where} step "${step.type}"`);
  const funcs = typeof task.evaluator.func === 'string' ? [task.evaluator.func] : task.evaluator.func;
  for (const func of funcs) if (!(METRICS as readonly string[]).includes(func)) problems.push(`metric "${func}"`);
  if (funcs.length === 1 && funcs[0] === 'infeasible') return problems;
  for (const getter of [...asList(task.evaluator.result), ...asList(task.evaluator.expected)]) {
    if (getter && !(GETTERS as readonly string[]).includes(getter.type)) problems.push(`getter "${getter.type}"`);
  }
  return problems;
}

function asList<T>(value: T | (T | null)[] | null | undefined): (T | null)[] {
  if (value == null) return [];
  return Array.isArray(value) ? value : [value];
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, seconds) * 1000));

/** SetupController's placeholders in an execute command: the password and the screen's size and half size. */
function fillPlaceholders(command: string | string[], ctx: SetupContext): string | string[] {
  const fill = (s: string) =>
    s
      .replaceAll('{CLIENT_PASSWORD}', ctx.clientPassword)
      .replaceAll('{SCREEN_WIDTH_HALF}', String(Math.floor(ctx.screenWidth / 2)))
      .replaceAll('{SCREEN_HEIGHT_HALF}', String(Math.floor(ctx.screenHeight / 2)))
      .replaceAll('{SCREEN_WIDTH}', String(ctx.screenWidth))
      .replaceAll('{SCREEN_HEIGHT}', String(ctx.screenHeight));
  return typeof command === 'string' ? fill(command) : command.map(fill);
}

const Command = z.union([z.string().min(1), z.array(z.string()).min(1)]);

function parameter<T>(step: SetupStep, name: string, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(step.parameters[name]);
  if (!parsed.success) throw new GymError('BAD_TASK', `osworld: setup step "${step.type}" has a bad "${name}": ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

// An execute step with `until` repeats until its output says so; OSWorld waits for ever, this gives up after 30 tries.
const UNTIL_TRIES = 30;

/**
 * Runs setup (or postconfig) steps in order, as SetupController.setup does. As there, a launch, execute or window
 * step the desktop refuses does not stop the setup: what it answered is returned, one line a step. An open or
 * download that fails ends it.
 */
export async function runSetup(desktop: Desktop, steps: readonly SetupStep[], ctx: SetupContext): Promise<string[]> {
  const refused: string[] = [];
  const tolerate = async (i: number, step: SetupStep, run: () => Promise<unknown>) => {
    try {
      return await run();
    } catch (e) {
      if (!(e instanceof GymError) || e.code !== 'ENV_ERROR') throw e;
      refused.push(`step ${i + 1} (${step.type}): ${e.message}`);
      return undefined;
    }
  };
  for (const [i, step] of steps.entries()) {
    switch (step.type) {
      case 'launch': {
        let command = parameter(step, 'command', Command);
        const shell = parameter(step, 'shell', z.boolean().default(false));
        // SetupController splits a string command on spaces when it is not run by a shell.
        if (!shell && typeof command === 'string' && command.split(/\s+/).length > 1) command = command.split(/\s+/).filter(Boolean);
        await tolerate(i, step, () => desktop.launch(command, shell));
        break;
      }
      case 'execute':
      case 'command': {
        const command = fillPlaceholders(parameter(step, 'command', Command), ctx);
        const shell = parameter(step, 'shell', z.boolean().default(false));
        const until = parameter(step, 'until', z.record(z.string(), z.unknown()).default({}));
        for (let tries = 1; ; tries++) {
          const out = (await tolerate(i, step, () => desktop.execute(command, shell))) as CommandResult | undefined;
          if (Object.keys(until).length === 0 || tries >= UNTIL_TRIES || !out) break;
          const done =
            ('returncode' in until && out.returncode === until.returncode) ||
            (typeof until.stdout === 'string' && (out.output ?? '').includes(until.stdout)) ||
            (typeof until.stderr === 'string' && (out.error ?? '').includes(until.stderr));
          if (done) break;
        }
        break;
      }
      case 'sleep':
        await sleep(parameter(step, 'seconds', z.number()));
        break;
      case 'open':
        await desktop.openFile(parameter(step, 'path', z.string().min(1)));
        break;
      case 'activate_window':
      case 'close_window':
        await tolerate(i, step, () =>
          desktop.window(
            step.type === 'activate_window' ? 'activate' : 'close',
            parameter(step, 'window_name', z.string().min(1)),
            parameter(step, 'strict', z.boolean().default(false)),
            parameter(step, 'by_class', z.boolean().default(false)),
          ),
        );
        break;
      case 'download': {
        // The host fetches each file and uploads it into the VM, as SetupController does (real runs only: the tests
        // here never download).
        const files = parameter(step, 'files', z.array(z.object({ url: z.string().url(), path: z.string().min(1) })));
        for (const file of files) {
          const response = await fetch(file.url).catch((e: Error) => {
            throw new GymError('ENV_ERROR', `osworld: setup step ${i + 1} could not download ${file.url}: ${e.message}`);
          });
          if (!response.ok) throw new GymError('ENV_ERROR', `osworld: setup step ${i + 1} could not download ${file.url}: HTTP ${response.status}`);
          await desktop.upload(file.path, new Uint8Array(await response.arrayBuffer()));
        }
        break;
      }
      default:
        throw new GymError('BAD_TASK', `osworld: setup step type "${step.type}" is not supported (supported: ${SETUP_TYPES.join(', ')})`);
    }
  }
  return refused;
}

type Value = unknown;

async function get(desktop: Desktop, config: GetterConfig): Promise<Value> {
  switch (config.type) {
    case 'rule':
      return config.rules;
    case 'default_search_engine': {
      // As OSWorld's getter on Linux (x86): Chrome's Preferences file under $HOME, its default provider's short
      // name, "Google" when the file cannot be read or parsed.
      const platform = (await desktop.runPython('import platform; print(platform.system())')).output?.trim();
      if (platform !== 'Linux') throw new GymError('ENV_ERROR', `osworld: default_search_engine on a ${platform || 'unknown'} desktop is not supported (Linux only)`);
      const prefs = (await desktop.runPython("import os; print(os.path.join(os.getenv('HOME'), '.config/google-chrome/Default/Preferences'))")).output?.trim() ?? '';
      try {
        const data = JSON.parse(new TextDecoder().decode(await desktop.file(prefs))) as Record<string, any>;
        return data?.default_search_provider_data?.template_url_data?.short_name ?? 'Google';
      } catch {
        return 'Google';
      }
    }
    case 'vm_command_line':
    case 'vm_command_error': {
      const command = Command.parse(config.command);
      const out = await desktop.executeRaw(command, config.shell === true);
      return config.type === 'vm_command_line' ? out.output : out.error;
    }
    case 'vm_terminal_output':
      return desktop.terminal();
    case 'accessibility_tree':
      return desktop.accessibilityTree();
    default:
      throw new GymError('BAD_TASK', `osworld: getter "${config.type}" is not supported (supported: ${GETTERS.join(', ')})`);
  }
}

/** Python's `==` on the JSON values getters return. */
function pyEqual(a: Value, b: Value): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Python's `needle in haystack` for a string (substring) or a list (an equal element). */
function pyIn(needle: Value, haystack: Value): boolean {
  if (typeof haystack === 'string') {
    if (typeof needle !== 'string') throw new GymError('VERIFY_ERROR', `osworld: 'in <string>' requires a string, not ${JSON.stringify(needle)}`);
    return haystack.includes(needle);
  }
  if (Array.isArray(haystack)) return haystack.some((item) => pyEqual(item, needle));
  if (haystack && typeof haystack === 'object') return typeof needle === 'string' && Object.hasOwn(haystack, needle);
  throw new GymError('VERIFY_ERROR', `osworld: ${JSON.stringify(haystack)} cannot hold ${JSON.stringify(needle)}`);
}

function rules(value: Value): Record<string, any> {
  if (!value || typeof value !== 'object') throw new GymError('VERIFY_ERROR', `osworld: the metric's rules are not an object: ${JSON.stringify(value)}`);
  return value as Record<string, any>;
}

/** OSWorld's text metrics (desktop_env/evaluators/metrics/general.py). */
function score(func: string, result: Value, expected: Value): number {
  switch (func) {
    case 'exact_match':
      return pyEqual(result, rules(expected).expected) ? 1 : 0;
    case 'match_in_list':
      return pyIn(result, rules(expected).expected) ? 1 : 0;
    case 'is_in_list':
      return pyIn(rules(expected).expected, result) ? 1 : 0;
    case 'check_include_exclude': {
      if (result == null) return 0;
      const r = rules(expected);
      const include: Value[] = r.include ?? [];
      const exclude: Value[] = r.exclude ?? [];
      return include.every((s) => pyIn(s, result)) && exclude.every((s) => !pyIn(s, result)) ? 1 : 0;
    }
    default:
      throw new GymError('BAD_TASK', `osworld: metric "${func}" is not supported (supported: ${METRICS.join(', ')})`);
  }
}

/**
 * DesktopEnv.evaluate: postconfig, then the metric(s). The `infeasible` metric scores 1 exactly when the last
 * action was FAIL; any other task scores 0 when it was. Several metrics combine by `conj`: `and` fails at the first
 * zero and averages, `or` succeeds at the first one and takes the maximum.
 */
export async function evaluate(desktop: Desktop, task: OSWorldTask, lastAction: string | null, ctx: SetupContext, refused: string[] = []): Promise<number> {
  const ev = task.evaluator;
  refused.push(...(await runSetup(desktop, ev.postconfig ?? [], ctx)));
  if (ev.func === 'infeasible') return lastAction === 'FAIL' ? 1 : 0;
  if (lastAction === 'FAIL') return 0;
  // Metrics without an expected getter take the result alone: OSWorld passes only the result, and these ports
  // read the rules from `expected`, so such a metric must be one that needs none.
  const metricOf = async (func: string, result: GetterConfig | null | undefined, expected: GetterConfig | null | undefined) => {
    const got = result ? await get(desktop, result) : null;
    const want = expected ? await get(desktop, expected) : undefined;
    return score(func, got, want);
  };
  if (typeof ev.func === 'string') return metricOf(ev.func, asSingle(ev.result), asSingle(ev.expected));
  const conj = ev.conj ?? 'and';
  const results = asList(ev.result);
  const expected = asList(ev.expected);
  const scores: number[] = [];
  for (const [i, func] of ev.func.entries()) {
    const value = await metricOf(func, results[i], expected[i]);
    if (conj === 'and' && value === 0) return 0;
    if (conj === 'or' && value === 1) return 1;
    scores.push(value);
  }
  return conj === 'and' ? scores.reduce((a, b) => a + b, 0) / scores.length : Math.max(...scores);
}

function asSingle(value: GetterConfig | (GetterConfig | null)[] | null | undefined): GetterConfig | null {
  if (value == null) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}
