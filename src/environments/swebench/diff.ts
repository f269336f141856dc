// The files a unified diff touches, read as SWE-bench reads a task's test patch (with unidiff 0.7.5's
// PatchSet): which files its eval script resets to the base commit, and which it runs as tests.
import { PyRegex } from '../../python/regex';

export const DEV_NULL = '/dev/null';

export interface PatchedFile {
  /** `a/…` (or the `---` name), /dev/null for a new file. */
  source: string;
  /** `b/…` (or the `+++` name), /dev/null for a deleted file. */
  target: string;
}

/** A diff unidiff cannot read; SWE-bench's test spec (and so NeMo Gym's verify) fails on it. */
export class DiffError extends Error {
  override name = 'DiffError';
}

const GIT_HEADERS = [
  new PyRegex('^diff --git (?P<source>a/[^\\t\\n]+) (?P<target>b/[^\\t\\n]+)'),
  new PyRegex('^diff --git (?P<source>.*://[^\\t\\n]+) (?P<target>.*://[^\\t\\n]+)'),
  new PyRegex('^diff --git (?P<source>[^\\t\\n]+) (?P<target>[^\\t\\n]+)'),
];
const NEW_FILE = new PyRegex('^new file mode \\d+$');
const DELETED_FILE = new PyRegex('^deleted file mode \\d+$');
const SOURCE_NAME = new PyRegex('^--- (?P<filename>[^\\t\\n]+)(?:\\t(?P<timestamp>[^\\n]+))?');
const TARGET_NAME = new PyRegex('^\\+\\+\\+ (?P<filename>[^\\t\\n]+)(?:\\t(?P<timestamp>[^\\n]+))?');
const HUNK = new PyRegex('^@@ -(\\d+)(?:,(\\d+))? \\+(\\d+)(?:,(\\d+))?\\ @@[ ]?(.*)');
const BODY_LINE = new PyRegex('^(?P<line_type>[- \\+\\\\])(?P<value>.*)', 's');
const EMPTY_BODY_LINE = new PyRegex('^(?P<line_type>[- \\+\\\\]?)(?P<value>[\\r\\n]{1,2})', 's');
const NO_NEWLINE = new PyRegex('^\\\\ No newline at end of file');
const BINARY = new PyRegex(
  '^Binary files? (?P<source_filename>[^\\t]+?)(?:\\t(?P<source_timestamp>[\\s0-9:\\+-]+))?(?: and (?P<target_filename>[^\\t]+?)(?:\\t(?P<target_timestamp>[\\s0-9:\\+-]+))?)? (differ|has changed)',
);

/** The lines as Python iterates a StringIO: split after each \n, which each line keeps. */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Consumes a hunk's body after its header (`at` is the header's index); returns the index of its last line. */
function readHunk(all: string[], at: number): number {
  const header = HUNK.search(all[at]!)!.groups;
  const length = (g: string | undefined) => (g === undefined ? 1 : Number(g));
  let source = Number(header[0]);
  let target = Number(header[2]);
  const sourceEnd = source + length(header[1]);
  const targetEnd = target + length(header[3]);
  let i = at;
  while (i + 1 < all.length) {
    const line = all[++i]!;
    const valid = BODY_LINE.search(line) ?? EMPTY_BODY_LINE.search(line);
    if (!valid) throw new DiffError(`Hunk diff line expected: ${line}`);
    const type = valid.groups[0];
    if (type === '+') target++;
    else if (type === '-') source++;
    else if (type === ' ' || type === '') {
      source++;
      target++;
    }
    if (source > sourceEnd || target > targetEnd) throw new DiffError('Hunk is longer than expected');
    if (source === sourceEnd && target === targetEnd) return i;
  }
  if (source < sourceEnd || target < targetEnd) throw new DiffError('Hunk is shorter than expected');
  return i;
}

/** unidiff's PatchSet over the diff: each file's source and target names. Throws DiffError where unidiff raises. */
export function patchedFiles(diff: string): PatchedFile[] {
  const all = lines(diff);
  const files: PatchedFile[] = [];
  let current: (PatchedFile & { hunks: number }) | undefined;
  let inInfo = false;
  let sourceName: string | undefined;
  for (let i = 0; i < all.length; i++) {
    const line = all[i]!;
    const header = GIT_HEADERS.map((re) => re.search(line)).find((m) => m !== null);
    if (header) {
      inInfo = true;
      current = { source: header.groups[0]!, target: header.groups[1]!, hunks: 0 };
      files.push(current);
      continue;
    }
    if (NEW_FILE.search(line) || DELETED_FILE.search(line)) {
      if (!current || !inInfo) throw new DiffError(`Unexpected ${NEW_FILE.search(line) ? 'new' : 'deleted'} file found: ${line}`);
      if (NEW_FILE.search(line)) current.source = DEV_NULL;
      else current.target = DEV_NULL;
      continue;
    }
    const source = SOURCE_NAME.search(line);
    if (source) {
      sourceName = source.groups[0]!;
      // A new file starts unless this is the --- line of the git header's own file.
      if (current && current.source !== sourceName) current = undefined;
      continue;
    }
    const target = TARGET_NAME.search(line);
    if (target) {
      const targetName = target.groups[0]!;
      if (current && current.target !== targetName) throw new DiffError(`Target without source: ${line}`);
      if (!current) {
        if (sourceName === undefined) throw new DiffError(`Target without source: ${line}`);
        current = { source: sourceName, target: targetName, hunks: 0 };
        files.push(current);
        inInfo = false;
      }
      continue;
    }
    if (HUNK.search(line)) {
      inInfo = false;
      if (!current) throw new DiffError(`Unexpected hunk found: ${line}`);
      i = readHunk(all, i);
      current.hunks++;
      continue;
    }
    if (NO_NEWLINE.search(line)) {
      if (!current || current.hunks === 0) throw new DiffError(`Unexpected marker: ${line}`);
      continue;
    }
    if (line === '\n' && current) {
      if (current.hunks === 0) throw new DiffError('Unexpected trailing newline character');
      continue;
    }
    if (!inInfo) {
      current = undefined;
      inInfo = true;
    }
    const binary = BINARY.search(line);
    if (binary) {
      if (!current) files.push({ source: binary.groups[0]!, target: binary.groups[2] ?? '', hunks: 0 } as PatchedFile & { hunks: number });
      current = undefined;
      inInfo = false;
      continue;
    }
    if (line === 'GIT binary patch\n') {
      if (!current) throw new DiffError("'NoneType' object has no attribute 'is_binary_file'");
      current = undefined;
      inInfo = false;
    }
  }
  return files.map(({ source, target }) => ({ source, target }));
}

/** SWE-bench's get_modified_files: the `a/` paths of the files the diff changes or deletes (not the ones it adds). */
export function modifiedFiles(diff: string): string[] {
  return patchedFiles(diff)
    .filter((f) => f.source !== DEV_NULL && f.source.startsWith('a/'))
    .map((f) => f.source.slice(2));
}

/** unidiff's PatchedFile.path: the source path, or the target's for a new file or a rename, without a/ or b/. */
export function patchedPath(file: PatchedFile): string {
  const rename = file.source !== DEV_NULL && file.target !== DEV_NULL && file.source.slice(2) !== file.target.slice(2);
  const chosen = file.source === DEV_NULL || rename ? file.target : file.source;
  return chosen.startsWith('a/') || chosen.startsWith('b/') ? chosen.slice(2) : chosen;
}
