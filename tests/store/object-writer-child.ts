// A results writer of the object store in its own process, for the race test: writes a record for each of
// a list of rollout ids (its own reward in each), several writes in flight, and prints which ids it won.
// argv[2] is JSON: { store, reward, ids, inFlight }; the AWS_* settings come from the environment.
import { writeSync } from 'node:fs';
import type { RolloutRecord } from '../../src/schemas/records';
import { ObjectRunFiles } from '../../src/store/object/run-objects';

const args = JSON.parse(process.argv[2]!) as { store: string; reward: number; ids: string[]; inFlight: number };
const files = new ObjectRunFiles(args.store);
const queue = [...args.ids];
const won: string[] = [];

async function lane(): Promise<void> {
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    const [task, repeat] = id.split('-').map(Number);
    const record = { _ng_task_index: task, _ng_rollout_index: repeat, reward: args.reward, _ng_rollout_id: id } as unknown as RolloutRecord;
    if (await files.appendRollout(record)) won.push(id);
  }
}

await Promise.all(Array.from({ length: args.inFlight }, lane));
writeSync(1, JSON.stringify({ won }) + '\n');
