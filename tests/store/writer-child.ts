// A results writer in its own process, for the exactly-once tests: appends a list of rollout ids
// (some as rollouts, some as sidecar failures), several appends in flight, and prints what it wrote.
// argv[2] is JSON: { dir, writer, ids, batch, inFlight, salt, leaseMs?, pauseAt? }.
import { writeSync } from 'node:fs';
import type { FailureRecord, RolloutRecord } from '../../src/schemas/records';
import { ResultsLog } from '../../src/store/results-log';

interface Args {
  dir: string;
  writer: string;
  ids: string[];
  batch: number;
  inFlight: number;
  /** Which ids go to the sidecar: writers with different salts race an id into different files. */
  salt: number;
  leaseMs?: number;
  /** Stop this process (SIGSTOP to itself) the first time the writer reaches this point with the lock held. */
  pauseAt?: 'before-write' | 'after-write';
}

const args = JSON.parse(process.argv[2]!) as Args;
const say = (line: string) => writeSync(1, line + '\n');

let paused = false;
const log = new ResultsLog(args.dir, {
  leaseMs: args.leaseMs,
  faultHook: args.pauseAt
    ? (point) => {
        if (point !== args.pauseAt || paused) return;
        paused = true;
        say('PAUSED');
        process.kill(process.pid, 'SIGSTOP');
      }
    : undefined,
});

const asFailure = (id: string) => (Number(id.split('-')[0]) + args.salt) % 3 === 0;

const rollout = (id: string): RolloutRecord => {
  const [task, repeat] = id.split('-').map(Number);
  return {
    _ng_task_index: task!,
    _ng_rollout_index: repeat!,
    _ng_rollout_id: id,
    responses_create_params: { input: `task ${task}` },
    response: { id: `resp-${id}`, output: [] },
    reward: (task! % 4) / 4,
    _gf_model_call_ids: [],
    writer: args.writer,
  };
};

const failure = (id: string): FailureRecord => {
  const [task, repeat] = id.split('-').map(Number);
  return {
    _ng_task_index: task!,
    _ng_rollout_index: repeat!,
    _ng_rollout_id: id,
    _ng_failure_class: 'model_error',
    message: args.writer,
    stage: 'model',
    attempt: 3,
    failed_at: new Date().toISOString(),
  };
};

async function main() {
  const chunks: string[][] = [];
  for (let i = 0; i < args.ids.length; i += args.batch) chunks.push(args.ids.slice(i, i + args.batch));
  let next = 0;
  const lane = async () => {
    while (next < chunks.length) {
      const chunk = chunks[next++]!;
      const failures = chunk.filter(asFailure);
      const rollouts = chunk.filter((id) => !asFailure(id));
      const [wroteRollouts, wroteFailures] = await Promise.all([log.appendRollouts(rollouts.map(rollout)), log.appendFailures(failures.map(failure))]);
      say(`WROTE ${JSON.stringify({ rollouts: wroteRollouts, failures: wroteFailures })}`);
    }
  };
  await Promise.all(Array.from({ length: args.inFlight }, lane));
  say('DONE');
}

main().catch((e) => {
  say(`ERROR ${(e as Error).message}`);
  process.exit(1);
});
