// The task's workspace as the agent left it, rebuilt from the episode: the task's starting files, then every
// file-writing tool call the agent made (OpenClaw's `write` and `edit`), in order. PinchBench's graders read
// the real workspace in its sandbox; a recorded rollout keeps only the calls, so they are replayed here. A call
// that could change files but cannot be replayed (a shell command, a patch) is counted, never guessed.
import path from 'node:path';
import type { ResponseObject } from '../../schemas/responses';
import type { TaskDefinition } from './tasks';

/** Tools that may change files whose effect the calls alone do not show. */
const OPAQUE_TOOLS = new Set(['exec', 'bash', 'shell', 'process', 'apply_patch', 'run_command']);
const PATH_KEYS = ['path', 'file_path', 'filePath', 'file'];
const OLD_KEYS = ['oldText', 'old_text', 'old_string', 'oldString'];
const NEW_KEYS = ['newText', 'new_text', 'new_string', 'newString'];
/** Where a workspace is seen from inside a sandbox: Gymflow's harness folder and PinchBench's run folders. */
const WORKSPACE_ROOTS = [/^\/workspace\//, /^.*\/agent_workspace\//];

export interface Workspace {
  /** Files by path relative to the workspace. */
  files: Map<string, string>;
  /** Calls that may have changed files but were not replayed (by tool name). */
  unreplayed: string[];
  /** Writes aimed outside the workspace (PinchBench's graders never see those). */
  outside: string[];
}

const firstString = (args: Record<string, unknown>, keys: string[]) => {
  for (const k of keys) if (typeof args[k] === 'string') return args[k] as string;
  return undefined;
};

/** A path relative to the workspace, or undefined when it points outside it. */
export function workspacePath(raw: string): string | undefined {
  let p = raw.trim();
  if (p.startsWith('~/')) return undefined;
  if (p.startsWith('/')) {
    const root = WORKSPACE_ROOTS.find((r) => r.test(p));
    if (!root) return undefined;
    p = p.replace(root, '');
  }
  const normal = path.posix.normalize(p);
  if (normal === '.' || normal.startsWith('../') || normal === '..') return undefined;
  return normal.replace(/^\.\//, '');
}

interface Edit {
  oldText: string;
  newText: string;
}

function editsOf(args: Record<string, unknown>): Edit[] | undefined {
  const list = Array.isArray(args.edits) ? (args.edits as unknown[]) : [args];
  const edits: Edit[] = [];
  for (const e of list) {
    if (typeof e !== 'object' || e === null) return undefined;
    const oldText = firstString(e as Record<string, unknown>, OLD_KEYS);
    const newText = firstString(e as Record<string, unknown>, NEW_KEYS);
    if (oldText === undefined || newText === undefined) return undefined;
    edits.push({ oldText, newText });
  }
  return edits.length ? edits : undefined;
}

/** The file after the edits, or undefined when the tool would refuse them. */
export function applyEdits(text: string, edits: Edit[] | undefined): string | undefined {
  if (!edits) return undefined;
  const spans: { at: number; end: number; newText: string }[] = [];
  for (const { oldText, newText } of edits) {
    const at = oldText ? text.indexOf(oldText) : -1;
    if (at < 0 || text.indexOf(oldText, at + 1) >= 0) return undefined;
    spans.push({ at, end: at + oldText.length, newText });
  }
  spans.sort((a, b) => a.at - b.at);
  if (spans.some((s, i) => i > 0 && s.at < spans[i - 1]!.end)) return undefined;
  let out = '';
  let from = 0;
  for (const s of spans) {
    out += text.slice(from, s.at) + s.newText;
    from = s.end;
  }
  return out + text.slice(from);
}

export function replayWorkspace(def: TaskDefinition, response: ResponseObject): Workspace {
  const files = new Map(def.workspace_files.map((f) => [f.path, f.content]));
  const unreplayed: string[] = [];
  const outside: string[] = [];
  for (const item of response.output as { type?: string; name?: unknown; arguments?: unknown }[]) {
    if (item.type !== 'function_call' || typeof item.name !== 'string') continue;
    const name = item.name;
    if (name !== 'write' && name !== 'edit') {
      if (OPAQUE_TOOLS.has(name)) unreplayed.push(name);
      continue;
    }
    let args: Record<string, unknown>;
    try {
      const parsed = JSON.parse(typeof item.arguments === 'string' ? item.arguments : '');
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      args = parsed as Record<string, unknown>;
    } catch {
      // The tool would have refused arguments it cannot read: nothing was written.
      continue;
    }
    const raw = firstString(args, PATH_KEYS);
    if (raw === undefined) continue;
    const file = workspacePath(raw);
    if (file === undefined) {
      outside.push(raw);
      continue;
    }
    if (name === 'write') {
      if (typeof args.content === 'string') files.set(file, args.content);
      continue;
    }
    // edit: OpenClaw's `edits: [{oldText, newText}, …]` (or one flat pair): each old text found exactly once in
    // the file as it was, the spans not overlapping; otherwise the tool refuses and nothing changes.
    const before = files.get(file);
    const after = before === undefined ? undefined : applyEdits(before, editsOf(args));
    if (after !== undefined) files.set(file, after);
  }
  return { files, unreplayed, outside };
}
