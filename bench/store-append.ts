// Records per second through the exactly-once results writer in one process: many callers appending
// one small record each (the way rollout activities do), group-committed under one lock and one write.
//   node --import tsx bench/store-append.ts [<records> [<callers in flight> [<flushDelayMs>]]]
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RolloutRecord } from '../src/schemas/records';
import { ResultsLog } from '../src/store/results-log';

const RECORDS = Number(process.argv[2] ?? 50_000);
const IN_FLIGHT = Number(process.argv[3] ?? 256);
const FLUSH_DELAY_MS = Number(process.argv[4] ?? 2);

const record = (i: number): RolloutRecord => ({
  _ng_task_index: i >> 4,
  _ng_rollout_index: i & 15,
  _ng_rollout_id: `${i >> 4}-${i & 15}`,
  responses_create_params: { input: 'What is 2 + 2?' },
  response: { id: `resp_${i}`, output: [] },
  reward: i % 2,
  _gf_model_call_ids: [`call_${i}`],
});

const dir = await mkdtemp(path.join(os.tmpdir(), 'gymflow-bench-store-'));
try {
  const log = new ResultsLog(dir, { flushDelayMs: FLUSH_DELAY_MS });
  let next = 0;
  let written = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < RECORDS) {
        const ids = await log.appendRollouts([record(next++)]);
        written += ids.length;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const lookupsStarted = performance.now();
  for (let i = 0; i < 10_000; i++) await log.lookup(`${i >> 4}-${i & 15}`);
  const lookupSeconds = (performance.now() - lookupsStarted) / 1000;
  const bytes = (await stat(log.rolloutsPath)).size;
  console.log(`records: ${written} of ${RECORDS}, callers in flight: ${IN_FLIGHT}, flushDelayMs: ${FLUSH_DELAY_MS}, folder: ${os.tmpdir()}`);
  console.log(`append: ${(written / seconds).toFixed(0)} records/s (${seconds.toFixed(2)} s, ${(bytes / written).toFixed(0)} bytes/record, fdatasync per group)`);
  console.log(`lookup: ${(10_000 / lookupSeconds).toFixed(0)} lookups/s`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
