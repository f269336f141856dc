// Records workflow histories of a small real run into tests/fixtures/histories, for the replay test.
// Run it when a workflow changes on purpose (with patching), to keep the old histories AND add new:
//   npx tsx scripts/capture-histories.ts <name>
import path from 'node:path';
import { captureRunHistories, saveHistories } from '../tests/helpers/histories';
import { runConfig, runInProcess, tempDir } from '../tests/helpers/run';
import { startTestServer } from '../tests/helpers/temporal-server';
import { runWorkflowId } from '../workflows/definitions';

const name = process.argv[2] ?? 'v1';
const server = await startTestServer();
try {
  const runDir = await tempDir('gymflow-histories-');
  const config = runConfig({
    runDir,
    envName: 'example_multi_step',
    inputFile: path.resolve('tests/fixtures/nemo-gym/example_multi_step/example.jsonl'),
    limit: 2,
    numRepeats: 2,
    concurrency: 2,
    rolloutsPerExecution: 3,
    model: { accuracy: 0.5, seed: 3 },
  });
  await runInProcess(server, config);
  const client = await server.client();
  const histories = await captureRunHistories(client, runWorkflowId(config.runId));
  const files = await saveHistories(histories, name);
  console.log(`saved ${files.length} histories:\n${files.join('\n')}`);
} finally {
  await server.stop();
}
