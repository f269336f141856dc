// Finds which task a request belongs to: the task (or recorded rollout) whose input is a prefix of the
// request's input. JSONL files are indexed once per version (path + mtime + size), so editing a task
// file while the gateway runs takes effect within a second.
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { GymError } from '../../../errors';
import type { ResponseCreateParams } from '../../../schemas/responses';
import { canonicalItems, type CanonicalPrefix } from '../../canonical';
import { ObjectStore } from '../../../store/object/client';
import { isObjectStoreUrl } from '../../../store/object/s3-url';

export interface PrefixMatch<Row> {
  /** Rows whose input is the longest matching prefix (several when a file repeats a task). */
  rows: Row[];
  /** Canonical JSON of the matched input: the task's identity for seeding. */
  inputKey: string;
  /** How many request items the matched input covers; the rest is the policy's history. */
  length: number;
}

/** Rows keyed by their canonical input, looked up by the prefixes of a request. */
export class InputIndex<Row> {
  private readonly byInput = new Map<string, Row[]>();
  private readonly lengths: number[];

  constructor(entries: Iterable<{ input: ResponseCreateParams['input']; row: Row }>) {
    const lengths = new Set<number>();
    for (const { input, row } of entries) {
      const items = canonicalItems(input);
      const key = `[${items.join(',')}]`;
      lengths.add(items.length);
      const rows = this.byInput.get(key);
      if (rows) rows.push(row);
      else this.byInput.set(key, [row]);
    }
    this.lengths = [...lengths].sort((a, b) => b - a);
  }

  /** Only prefix lengths some row has are tried, longest first. */
  match(items: CanonicalPrefix): PrefixMatch<Row> | undefined {
    for (const length of this.lengths) {
      if (length > items.length) continue;
      const inputKey = items.key(length);
      const rows = this.byInput.get(inputKey);
      if (rows) return { rows, inputKey, length };
    }
    return undefined;
  }
}

/** The text of a conversation item's content, its parts joined. */
export function itemText(item: unknown): string {
  const content = (item as { content?: unknown }).content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof (part as { text?: unknown })?.text === 'string' ? (part as { text: string }).text : '')).join('');
}

function userPrompt(input: ResponseCreateParams['input']): string {
  if (typeof input === 'string') return input;
  const last = [...input].reverse().find((item) => (item as { role?: string }).role === 'user');
  return last ? itemText(last) : '';
}

/**
 * Rows keyed by their prompt (the last user message of their input), found in a request whose user
 * message contains it: an external harness sends its own system prompt and wraps the task's prompt in context.
 */
export class PromptIndex<Row> {
  private readonly byPrompt = new Map<string, Row[]>();

  constructor(entries: Iterable<{ input: ResponseCreateParams['input']; row: Row }>) {
    for (const { input, row } of entries) {
      const prompt = userPrompt(input).trim();
      if (!prompt) continue;
      const rows = this.byPrompt.get(prompt);
      if (rows) rows.push(row);
      else this.byPrompt.set(prompt, [row]);
    }
  }

  /**
   * The latest user message holding a known prompt; `length` counts the items up to it. OpenCode's `run`
   * sends a message holding spaces in double quotes, its own double quotes backslash-escaped: found that way too.
   */
  match(items: readonly unknown[]): PrefixMatch<Row> | undefined {
    for (let i = items.length - 1; i >= 0; i--) {
      if ((items[i] as { role?: string }).role !== 'user') continue;
      const text = itemText(items[i]);
      for (const [prompt, rows] of this.byPrompt) {
        if (text.includes(prompt) || text.includes(prompt.replaceAll('"', '\\"'))) return { rows, inputKey: JSON.stringify(prompt), length: i + 1 };
      }
    }
    return undefined;
  }
}

/** Parses a JSONL file's rows with `schema`, naming file and line on the first bad one. */
export function parseJsonl<T extends z.ZodType>(text: string, path: string, schema: T): z.infer<T>[] {
  const rows: z.infer<T>[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new GymError('SETUP_FAILED', `${path}:${i + 1}: not JSON (${(e as Error).message})`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new GymError('SETUP_FAILED', `${path}:${i + 1}: ${issue.path.join('.') || '(row)'}: ${issue.message}`);
    }
    rows.push(parsed.data);
  });
  return rows;
}

/** How long a file's version is trusted before it is checked again. */
const RECHECK_MS = 1000;

/** Caches one value per file version, checked at most once a second; concurrent first calls share one load. */
export class FileCache<T> {
  private readonly entries = new Map<string, { version: string; value: Promise<T>; checkedAt: number }>();
  /** A recheck in progress per file: calls arriving meanwhile wait for it instead of each making its own stat. */
  private readonly checking = new Map<string, Promise<T>>();

  constructor(private readonly load: (text: string, path: string) => T) {}

  get(file: string): Promise<T> {
    if (isObjectStoreUrl(file)) return this.fromStore(file);
    const path = resolve(file);
    const cached = this.entries.get(path);
    // A stat per model call was a third of a single-turn rollout's cost: a version is trusted this long.
    if (cached && performance.now() - cached.checkedAt < RECHECK_MS) return cached.value;
    let check = this.checking.get(path);
    if (!check) {
      check = this.check(path);
      this.checking.set(path, check);
      const done = () => void (this.checking.get(path) === check && this.checking.delete(path));
      check.then(done, done);
    }
    return check;
  }

  private async check(path: string): Promise<T> {
    const cached = this.entries.get(path);
    let info;
    try {
      info = await stat(path);
    } catch (e) {
      throw new GymError('SETUP_FAILED', `mock model file ${path} cannot be read: ${(e as Error).message}`);
    }
    const version = `${info.mtimeMs}:${info.size}`;
    if (cached?.version === version) {
      cached.checkedAt = performance.now();
      return cached.value;
    }
    const value = readFile(path, 'utf8').then((text) => this.load(text, path));
    this.entries.set(path, { version, value, checkedAt: performance.now() });
    value.catch(() => {
      if (this.entries.get(path)?.value === value) this.entries.delete(path);
    });
    return value;
  }

  /**
   * A run's tasks.jsonl in its object store (`--store`): collated once and never changed, so it is read once;
   * a read before the run is collated fails and is tried again by the next call.
   */
  private fromStore(url: string): Promise<T> {
    const cached = this.entries.get(url);
    if (cached) return cached.value;
    const at = url.lastIndexOf('/');
    const value = new ObjectStore(url.slice(0, at)).get(url.slice(at + 1)).then((text) => {
      if (text === undefined) throw new GymError('SETUP_FAILED', `mock model file ${url} is not in the object store (yet)`);
      return this.load(text, url);
    });
    this.entries.set(url, { version: 'object', value, checkedAt: performance.now() });
    value.catch(() => {
      if (this.entries.get(url)?.value === value) this.entries.delete(url);
    });
    return value;
  }
}
