// grep and glob over the working tree, written here to answer as NeMo Gym's `rg` (ripgrep 13) and `fd --hidden
// --no-ignore --glob` (fd 8.6) calls do, so no search binary is needed on the worker. Output is in path order.
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { followInTree } from './tree';

export interface SearchResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** grep's stdout may be kept only in part: `stdoutBytes` is its whole UTF-8 length. */
export interface GrepResult extends SearchResult {
  stdoutBytes: number;
  timedOut: boolean;
}

interface Entry {
  virtual: string;
  host: string;
  dir: boolean;
}

/** Entries under a directory, depth first in byte order of their names; symlinks are listed, never followed. */
async function walk(host: string, virtual: string, skipHidden: boolean, out: Entry[]): Promise<void> {
  const names = (await readdir(host).catch(() => [] as string[])).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const name of names) {
    if (skipHidden && name.startsWith('.')) continue;
    const child = path.join(host, name);
    const info = await lstat(child).catch(() => null);
    if (!info) continue;
    const entry = { virtual: `${virtual}/${name}`, host: child, dir: info.isDirectory() };
    out.push(entry);
    if (entry.dir) await walk(child, entry.virtual, skipHidden, out);
  }
}

/** Leading inline flags (`(?i)`, `(?s)`), which Rust's regex takes and JavaScript's does not. */
function inlineFlags(pattern: string): { source: string; flags: string } {
  const m = /^\(\?([imsux]+)\)/.exec(pattern);
  if (!m) return { source: pattern, flags: '' };
  return { source: pattern.slice(m[0].length), flags: [...m[1]!].filter((f) => 'ims'.includes(f)).join('') };
}

export interface GrepOptions {
  pattern: string;
  fixedStrings: boolean;
  caseInsensitive: boolean;
  /** Matching lines per file (rg's --max-count); null for all. */
  maxCount: number | null;
  /** How much of the output to keep: what the tool shows of it. */
  keepBytes: number;
  deadlineMs: number;
}

/** `rg --line-number --with-filename --no-heading [...] -- pattern target`. */
export async function grep(tree: string, target: string, options: GrepOptions): Promise<GrepResult> {
  const { source, flags } = options.fixedStrings ? { source: options.pattern.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'), flags: '' } : inlineFlags(options.pattern);
  let re: RegExp;
  try {
    re = new RegExp(source, `u${options.caseInsensitive && !flags.includes('i') ? 'i' : ''}${flags}`);
  } catch (e) {
    return { exitCode: 2, stdout: '', stderr: `regex parse error:\n    ${options.pattern}\n    ^\nerror: ${(e as Error).message}\n`, stdoutBytes: 0, timedOut: false };
  }
  const host = await followInTree(tree, target);
  const info = host ? await stat(host).catch(() => null) : null;
  if (!host || !info) return { exitCode: 2, stdout: '', stderr: `${target}: No such file or directory (os error 2)\n`, stdoutBytes: 0, timedOut: false };
  const files: Entry[] = [];
  if (info.isDirectory()) {
    const entries: Entry[] = [];
    await walk(host, target, true, entries);
    // A recursive search skips symlinks (rg does not follow them unless told to).
    for (const e of entries) if (!e.dir && (await lstat(e.host)).isFile()) files.push(e);
  } else files.push({ virtual: target, host, dir: false });
  const found = await searchFiles(
    { source: re.source, flags: re.flags, files: files.map((f) => ({ virtual: f.virtual, host: f.host })), maxCount: options.maxCount, keepBytes: options.keepBytes },
    options.deadlineMs,
  );
  if (!found) return { exitCode: -1, stdout: '', stderr: '', stdoutBytes: 0, timedOut: true };
  return { exitCode: found.bytes ? 0 : 1, stdout: found.text, stderr: '', stdoutBytes: found.bytes, timedOut: false };
}

// The line search runs on a worker thread, plain JavaScript so it starts without a TypeScript loader: a pattern
// from the model may backtrack without end (rg's regexes cannot), and the deadline then ends the thread.
const SEARCH_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { source, flags, files, maxCount, keepBytes } = workerData;
const re = new RegExp(source, flags);
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
let text = '';
let bytes = 0;
for (const file of files) {
  let data;
  try { data = readFileSync(file.host); } catch { continue; }
  // Binary files (a NUL byte) are skipped, as rg skips them while searching a directory.
  if (data.includes(0)) continue;
  const lines = decoder.decode(data).split('\\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let found = 0;
  for (let i = 0; i < lines.length; i++) {
    if (maxCount !== null && found >= maxCount) break;
    if (!re.test(lines[i])) continue;
    found++;
    const line = file.virtual + ':' + (i + 1) + ':' + lines[i] + '\\n';
    if (bytes <= keepBytes) text += line;
    bytes += Buffer.byteLength(line);
  }
}
parentPort.postMessage({ text, bytes });
`;

interface SearchJob {
  source: string;
  flags: string;
  files: { virtual: string; host: string }[];
  maxCount: number | null;
  keepBytes: number;
}

/** The matching lines (kept up to about `keepBytes`) and their whole length; null past the deadline. */
function searchFiles(job: SearchJob, deadlineMs: number): Promise<{ text: string; bytes: number } | null> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SEARCH_WORKER, { eval: true, workerData: job });
    const timer = setTimeout(() => {
      void worker.terminate();
      resolve(null);
    }, deadlineMs);
    worker.once('message', (found: { text: string; bytes: number }) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(found);
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** A glob (globset syntax: `*`, `?`, `[…]`/`[!…]`, `{a,b}`, `**`) as a regular expression over a file name. */
function globRegExp(glob: string, ignoreCase: boolean): RegExp {
  let re = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else re += '[^/]*';
    } else if (ch === '?') re += '[^/]';
    else if (ch === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) re += '\\[';
      else {
        let body = glob.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (ch === '{') {
      depth++;
      re += '(?:';
    } else if (ch === '}' && depth) {
      depth--;
      re += ')';
    } else if (ch === ',' && depth) re += '|';
    else if (ch === '\\' && i + 1 < glob.length) re += `\\${glob[++i]}`;
    else re += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, `u${ignoreCase ? 'i' : ''}`);
}

/** `fd --hidden --no-ignore --glob -- pattern target`: smart case, matched on the file name; directories end in "/". */
export async function glob(tree: string, target: string, pattern: string): Promise<SearchResult> {
  const host = await followInTree(tree, target);
  const info = host ? await stat(host).catch(() => null) : null;
  if (!host || !info?.isDirectory()) return { exitCode: 1, stdout: '', stderr: `[fd error]: Search path '${target}' is not a directory.\n[fd error]: No valid search paths given.\n` };
  let re: RegExp;
  try {
    re = globRegExp(pattern, pattern === pattern.toLowerCase());
  } catch (e) {
    return { exitCode: 1, stdout: '', stderr: `[fd error]: ${(e as Error).message}\n` };
  }
  const entries: Entry[] = [];
  await walk(host, target, false, entries);
  const out = entries
    .filter((e) => re.test(path.posix.basename(e.virtual)))
    .map((e) => (e.dir ? `${e.virtual}/` : e.virtual))
    .join('\n');
  return { exitCode: 0, stdout: out ? `${out}\n` : '', stderr: '' };
}
