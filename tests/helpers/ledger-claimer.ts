// A process that claims request ids in a burst and dies by SIGKILL once some claims are answered, so a test sees
// what a crash between the ledger's append and the answer leaves: it prints each id as its claim resolves.
//   node --import tsx tests/helpers/ledger-claimer.ts <requests dir> <claims> <answered before the kill>
import { RequestLedger } from '../../src/api/request-ledger';

const [dir, claims, killAfter] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4])];
const ledger = await RequestLedger.open(dir);
let answered = 0;
const request = { env: 'mcqa', model: 'mock' as const, input: '/tasks.jsonl' };
for (let i = 0; i < claims; i++) {
  const id = `burst-${i}`;
  void ledger.claim({ request_id: id, body_sha256: 'sha', request, run_id: id, workflow_id: `gymflow-run-${id}`, run_dir: `/runs/${id}`, created_at: new Date().toISOString() }).then(() => {
    // A pipe's write is synchronous on Linux: the id is out before the kill.
    process.stdout.write(`${id}\n`);
    if (++answered === killAfter) process.kill(process.pid, 'SIGKILL');
  });
  // Claims arrive over a few turns of the event loop, as requests do, so several batches are under way.
  if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve));
}
