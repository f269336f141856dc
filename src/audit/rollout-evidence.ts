// What a run folder holds about one rollout: its record or sidecar line, its journal while it is in
// flight or failed, and every model call it made (joined by `_gf_model_call_ids` and by rollout id).
import { createReadStream, existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ModelCallRecord, type FailureRecord, type RolloutRecord } from '../schemas/records';
import { FileJournal, type JournalEntry } from '../store/journal';
import { RunStore } from '../store/run-store';

export interface RolloutEvidence {
  record?: RolloutRecord;
  failure?: FailureRecord;
  /** The journal in work/, present while the rollout is in flight or after it failed. */
  journal: JournalEntry[];
  /** Its model calls in the order they started (attempts included). */
  calls: ModelCallRecord[];
  /** Calls the record names that the call log does not hold. */
  missingCalls: string[];
}

async function eachJsonLine(file: string, onValue: (value: unknown) => void): Promise<void> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    try {
      onValue(JSON.parse(line));
    } catch {
      // A torn last line of a segment a killed worker was writing: it holds no complete call.
    }
  }
}

export async function readRolloutEvidence(runDir: string, rolloutId: string): Promise<RolloutEvidence> {
  const store = new RunStore(runDir);
  let record: RolloutRecord | undefined;
  let failure: FailureRecord | undefined;
  await store.scanResults({
    rollout: (r) => void (r._ng_rollout_id === rolloutId && (record = r)),
    failure: (f) => void (f._ng_rollout_id === rolloutId && (failure = f)),
  });
  const journal = await new FileJournal(path.join(runDir, 'work', `${rolloutId}.jsonl`)).read();
  const named = new Set(record?._gf_model_call_ids ?? []);
  const calls: ModelCallRecord[] = [];
  const callDir = path.join(runDir, 'model_calls');
  const segments = existsSync(callDir) ? (await readdir(callDir)).filter((f) => f.endsWith('.jsonl')).sort() : [];
  for (const segment of segments) {
    await eachJsonLine(path.join(callDir, segment), (value) => {
      const parsed = ModelCallRecord.safeParse(value);
      if (parsed.success && (parsed.data.rollout_id === rolloutId || named.has(parsed.data.call_id))) calls.push(parsed.data);
    });
  }
  calls.sort((a, b) => (a.started_at ?? 0) - (b.started_at ?? 0) || a.step - b.step || a.attempt - b.attempt);
  const logged = new Set(calls.map((c) => c.call_id));
  return { record, failure, journal, calls, missingCalls: [...named].filter((id) => !logged.has(id)) };
}
