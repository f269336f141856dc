// The mock policy's player for swe_repair: it drives whichever harness asked, through that harness's own
// tools (picked from the request's tool list by their schemas), to write the task's reference fix, then finishes.
import type { ConversationItem, FunctionCallItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle, OracleOptions } from '../oracle';
import type { TaskRow } from '../../schemas/task';
import { WORKDIR, type SweRepairTask } from '.';

export interface ToolSchema {
  name: string;
  properties: Record<string, { type?: unknown; minLength?: number }>;
  required: string[];
}

/** Function tools as the gateway hands them to backends (Responses shape); hosted and namespace tools are not callable here. */
export function toolSchemas(tools: readonly unknown[]): ToolSchema[] {
  const schemas: ToolSchema[] = [];
  for (const tool of tools) {
    const t = tool as { type?: string; name?: string; parameters?: { properties?: Record<string, any>; required?: string[] } | null };
    if (t?.type !== 'function' || !t.name) continue;
    schemas.push({ name: t.name, properties: t.parameters?.properties ?? {}, required: t.parameters?.required ?? [] });
  }
  return schemas;
}

const SHELL_KEYS = ['command', 'cmd', 'commands'];
const PATH_KEYS = ['path', 'filePath', 'file_path'];
export const FINISH_TOOLS = ['submit_and_exit', 'attempt_completion'];

/** A tool that runs one shell line: its only required key is the command (a string, or cline's list of them). */
export function shellTool(tools: ToolSchema[]): { name: string; key: string; list: boolean } | undefined {
  for (const tool of tools) {
    const key = tool.required.length === 1 ? tool.required[0]! : undefined;
    if (key && SHELL_KEYS.includes(key)) return { name: tool.name, key, list: tool.properties[key]?.type === 'array' };
  }
  return undefined;
}

/** A tool that writes a whole file: a path key and a content key, nothing else required. */
function writeTool(tools: ToolSchema[]): { name: string; pathKey: string } | undefined {
  for (const tool of tools) {
    const pathKey = PATH_KEYS.find((k) => k in tool.properties);
    if (pathKey && 'content' in tool.properties && tool.required.every((k) => k === pathKey || k === 'content')) return { name: tool.name, pathKey };
  }
  return undefined;
}

/** One shell line writing every file (base64, so no content needs quoting). */
function writeAllCommand(files: Record<string, string>): string {
  return Object.entries(files)
    .map(([file, content]) => {
      const target = `${WORKDIR}/${file}`;
      const dir = target.slice(0, target.lastIndexOf('/'));
      return `mkdir -p '${dir}' && printf '%s' '${Buffer.from(content).toString('base64')}' | base64 -d > '${target}'`;
    })
    .join(' && ');
}

/** Arguments for a finishing tool, filled from its schema (cline's summary needs ten characters). */
export function finishArguments(tool: ToolSchema): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const key of tool.required) {
    const type = tool.properties[key]?.type;
    args[key] = type === 'boolean' ? true : type === 'number' || type === 'integer' ? 0 : 'Applied the fix; the failing test passes now.';
  }
  return args;
}

export function call(name: string, args: Record<string, unknown>, index: number): FunctionCallItem {
  return { type: 'function_call', call_id: `call_swe_${index}`, name, arguments: JSON.stringify(args), status: 'completed' };
}

/** Terminus-2's prompt (its JSON parser's): it offers no tools and takes keystroke batches in a JSON object. */
function isTerminusPrompt(prompt: string | undefined): boolean {
  return !!prompt && prompt.includes('"keystrokes"') && prompt.includes('"task_complete"');
}

/**
 * Terminus-2's turns: the fix typed as one shell line, then `task_complete` — twice, as Terminus-2 asks
 * for the claim to be confirmed. Wrong play claims completion at once.
 */
function terminusTurn(task: SweRepairTask, history: readonly ConversationItem[], correct: boolean): ConversationItem[] {
  const answered = history.filter((i) => i.type === 'message' && (i as { role?: string }).role === 'assistant').length;
  const typing = correct && answered === 0;
  const reply = {
    analysis: typing ? 'The repository has the bug the task describes.' : 'The work is done.',
    plan: typing ? 'Write the fixed files in one command.' : 'Mark the task complete.',
    commands: typing ? [{ keystrokes: `${writeAllCommand(task.fix)}\n`, duration: 1 }] : [],
    task_complete: !typing,
  };
  return [assistantMessage(JSON.stringify(reply, null, 2))];
}

/**
 * Stateless, like the recipes' mock: the history says what is done. Wrong play (accuracy < 1) finishes
 * at once without touching the repository, so the hidden tests fail.
 */
export const sweRepairOracle: Oracle<SweRepairTask> = (task, history, { correct, tools = [], prompt }) => {
  const schemas = toolSchemas(tools);
  if (schemas.length === 0 && isTerminusPrompt(prompt)) return terminusTurn(task, history, correct);
  const made = history.filter((i): i is FunctionCallItem & ConversationItem => i.type === 'function_call');
  const done = (name: string) => made.some((c) => c.name === name);
  const files = Object.entries(task.fix);
  if (correct && schemas.length > 0) {
    const shell = shellTool(schemas);
    const writer = writeTool(schemas);
    // A shell writes everything in one call, and no harness asks for a file to be read before a shell overwrites it.
    if (shell && !done(shell.name)) {
      const line = writeAllCommand(task.fix);
      return [call(shell.name, { [shell.key]: shell.list ? [line] : line }, made.length)];
    }
    if (!shell && writer) {
      const written = made.filter((c) => c.name === writer.name).length;
      if (written < files.length) {
        const [file, content] = files[written]!;
        return [call(writer.name, { [writer.pathKey]: `${WORKDIR}/${file}`, content }, made.length)];
      }
    }
  }
  const finish = schemas.find((t) => FINISH_TOOLS.includes(t.name));
  if (finish && !done(finish.name)) return [call(finish.name, finishArguments(finish), made.length)];
  return [assistantMessage('done')];
};

/** One shell line that writes `content` to `file` (base64, so nothing needs quoting). */
export function writeFileLine(file: string, content: string): string {
  return `printf '%s' '${Buffer.from(content).toString('base64')}' | base64 -d > ${file}`;
}

/**
 * The oracle of a task a harness solves with one shell line (a reference solution or patch): played right, the
 * line through the harness's own shell tool, then its finishing tool. Stateless, the history says what ran.
 * Played wrong, for a task without a line or a harness without a shell, it finishes without touching anything.
 */
export function shellLineOracle<Task extends TaskRow>(lineOf: (task: Task, options: OracleOptions) => string | undefined): Oracle<Task> {
  return (task, history, options) => {
    const { correct, tools = [] } = options;
    const schemas = toolSchemas(tools);
    const made = history.filter((i): i is FunctionCallItem & ConversationItem => i.type === 'function_call');
    const done = (name: string) => made.some((c) => c.name === name);
    const shell = shellTool(schemas);
    const line = correct && shell && !done(shell.name) ? lineOf(task, options) : undefined;
    if (shell && line !== undefined) return [call(shell.name, { [shell.key]: shell.list ? [line] : line }, made.length)];
    const finish = schemas.find((t) => FINISH_TOOLS.includes(t.name));
    if (finish && !done(finish.name)) return [call(finish.name, finishArguments(finish), made.length)];
    return [assistantMessage('done')];
  };
}
