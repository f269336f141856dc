// Workflow histories as JSON files (the format of `temporal workflow show --output json` and the Web
// UI download): captured from real runs, replayed against the current workflow code.
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { fetchRunHistories } from '../../src/audit/history-files';

const SEPARATOR = '--';
const SLASH = '~';

export const HISTORIES_DIR = path.resolve(import.meta.dirname, '../fixtures/histories');

/** Every execution of a run — its continue-as-new chain and its shards — as JSON text (as `gym eval history` exports them). */
export function captureRunHistories(client: Client, runWorkflowId: string): Promise<{ workflowId: string; json: string }[]> {
  return fetchRunHistories(client, runWorkflowId);
}

export async function saveHistories(histories: { workflowId: string; json: string }[], prefix: string): Promise<string[]> {
  const files: string[] = [];
  for (const [i, h] of histories.entries()) {
    const file = path.join(HISTORIES_DIR, `${prefix}-${i}${SEPARATOR}${h.workflowId.replaceAll('/', SLASH)}.json`);
    await writeFile(file, h.json);
    files.push(file);
  }
  return files;
}

/** Replay must use the original workflow id (children's ids derive from it), so file names carry it. */
export function committedHistories(): { workflowId: string; history: unknown }[] {
  return readdirSync(HISTORIES_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({
      workflowId: f
        .replace(/\.json$/, '')
        .split(SEPARATOR)[1]!
        .replaceAll(SLASH, '/'),
      history: JSON.parse(readFileSync(path.join(HISTORIES_DIR, f), 'utf8')),
    }));
}
