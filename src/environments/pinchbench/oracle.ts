// The mock policy's player for pinchbench: through whichever harness asked, it writes each task's output file
// with that harness's own file-writing tool (found in the request's tool list by its schema), then finishes
// with a message. Played wrong (accuracy < 1) it only answers in words, so no output file exists.
import type { ConversationItem, FunctionCallItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import { nextTuesday } from './graders';
import { taskIdOf, type PinchBenchTask } from '.';
import { taskDefinition } from './tasks';

const PATH_KEYS = ['path', 'file_path', 'filePath'];

/** A tool that writes a whole file: a path key and `content`, nothing else required. */
function writeTool(tools: readonly unknown[]): { name: string; pathKey: string } | undefined {
  for (const tool of tools) {
    const t = tool as { type?: string; name?: string; parameters?: { properties?: Record<string, unknown>; required?: string[] } | null };
    if (t?.type !== 'function' || !t.name) continue;
    const props = t.parameters?.properties ?? {};
    const pathKey = PATH_KEYS.find((k) => k in props);
    if (pathKey && 'content' in props && (t.parameters?.required ?? []).every((k) => k === pathKey || k === 'content')) return { name: t.name, pathKey };
  }
  return undefined;
}

interface Todo {
  id: number;
  project: string;
  due_date: string;
  status: string;
  [key: string]: unknown;
}

/** The cleaned list: the later of each pair of same-meaning titles completed, pending items past the reference date flagged. */
function cleanedTodos(source: string): string {
  const data = JSON.parse(source) as { todos: Todo[]; reference_date: string };
  // The fixture's duplicate pairs, by meaning (no string rule finds "CI/CD" ≈ "continuous integration").
  const duplicates = new Set([4, 7, 10, 13]);
  const projects: Record<string, Todo[]> = {};
  for (const todo of data.todos) {
    const status = duplicates.has(todo.id) ? 'completed' : todo.status;
    const overdue = status === 'pending' && todo.due_date < data.reference_date;
    (projects[todo.project] ??= []).push({ ...todo, status, ...(overdue ? { overdue: true } : {}) });
  }
  return JSON.stringify({ projects }, null, 2);
}

function outputFile(task: PinchBenchTask, today: Date, seen?: string): { path: string; content: string } | undefined {
  const id = taskIdOf(task);
  if (id === 'task_calendar') {
    const day = nextTuesday(today);
    return {
      path: 'project_sync.ics',
      content: `BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nDTSTART:${day}T150000\nDTEND:${day}T160000\nSUMMARY:Project Sync\nDESCRIPTION:Discuss the Q1 roadmap\nATTENDEE:mailto:john@example.com\nEND:VEVENT\nEND:VCALENDAR\n`,
    };
  }
  if (id === 'task_todo_list_cleanup') {
    // Cleaned from what the harness's read tool showed: a folder not seeded gives no file to write.
    if (seen === undefined) return undefined;
    try {
      return { path: 'todos_cleaned.json', content: cleanedTodos(seen) };
    } catch {
      return undefined;
    }
  }
  if (id === 'task_daily_summary') {
    return {
      path: 'daily_briefing.md',
      content: '# Daily Briefing\n\n## Executive Summary\n- Nexus launched NexusAI below our premium price.\n- MegaCorp ($450K ARR) is a churn risk.\n- EU AI Act enforcement begins March 1.\n',
    };
  }
  if (id === 'task_email') {
    return {
      path: 'email_draft.txt',
      content: 'Subject: Unable to attend\n\nDear Alex,\n\nThank you for the invitation. Due to a schedule conflict I cannot attend; could we find another time next week?\n\nBest regards,\nSam\n',
    };
  }
  return undefined;
}

/** A tool that reads one file: a path key is all it requires, and its name says read. */
function readTool(tools: readonly unknown[]): { name: string; pathKey: string } | undefined {
  for (const tool of tools) {
    const t = tool as { type?: string; name?: string; parameters?: { properties?: Record<string, unknown>; required?: string[] } | null };
    if (t?.type !== 'function' || !t.name || !/read/i.test(t.name)) continue;
    const required = t.parameters?.required ?? [];
    const pathKey = PATH_KEYS.find((k) => k in (t.parameters?.properties ?? {}));
    if (pathKey && required.every((k) => k === pathKey)) return { name: t.name, pathKey };
  }
  return undefined;
}

function callItem(name: string, args: Record<string, unknown>, index: number): ConversationItem {
  const call: FunctionCallItem = { type: 'function_call', call_id: `call_pinchbench_${index}`, name, arguments: JSON.stringify(args), status: 'completed' };
  return call as ConversationItem;
}

/** Stateless: the history says what was read and written yet. */
export const pinchbenchOracle: Oracle<PinchBenchTask> = (task, history, { correct, tools = [], settings }) => {
  if (taskIdOf(task) === 'task_sanity') return [assistantMessage(correct ? "Hello, I'm ready!" : '')];
  const writer = writeTool(tools);
  const reader = readTool(tools);
  const calls = history.filter((i) => i.type === 'function_call') as FunctionCallItem[];
  const wrote = writer !== undefined && calls.some((c) => c.name === writer.name);
  const today = typeof settings?.today === 'string' ? new Date(`${settings.today}T00:00:00Z`) : new Date();
  const readCall = reader ? calls.find((c) => c.name === reader.name) : undefined;
  const readResult = history.find((i) => i.type === 'function_call_output' && (i as { call_id?: string }).call_id === readCall?.call_id) as { output?: unknown } | undefined;
  const seen = typeof readResult?.output === 'string' ? readResult.output : undefined;
  const file = outputFile(task, today, seen);
  // A task with files reads its first one before writing, as an agent would (so the seeded folder shows).
  const seeded = taskDefinition(taskIdOf(task)).workspace_files[0];
  if (correct && reader && seeded && !readCall) return [callItem(reader.name, { [reader.pathKey]: seeded.path }, calls.length)];
  if (correct && writer && file && !wrote) return [callItem(writer.name, { [writer.pathKey]: file.path, content: file.content }, calls.length)];
  return [assistantMessage(correct && wrote ? `Saved ${file?.path ?? 'the file'}.` : 'I could not do that.')];
};
