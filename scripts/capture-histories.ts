// Records workflow histories of a small real run into tests/fixtures/histories, for the replay test.
// Run it when a workflow changes on purpose (with patching), to keep the old histories AND add new:
//   npx tsx scripts/capture-histories.ts <name>
import path from 'node:path';
import { captureRunHistories, saveHistories } from '../tests/helpers/histories';
import { runConfig, runInProcess, tempDir } from '../tests/helpers/run';
import { startTestServer } from '../tests/helpers/temporal-server';
import { runWorkflowId } from '../workflows/definitions';

const name = process.argv[2] ?? 'v1';
/** One small run per workflow branch: the simple agent (with continue-as-new), the rollout grain, the gymnasium agent. */
const RUNS = [
  { envName: 'example_multi_step', input: 'tests/fixtures/nemo-gym/example_multi_step/example.jsonl', stepsPerExecution: 3, durability: 'turn' as const },
  { envName: 'mcqa', input: 'tests/fixtures/nemo-gym/mcqa/example.jsonl', durability: 'rollout' as const },
  { envName: 'example_multi_turn_gymnasium', input: 'tests/fixtures/nemo-gym/example_multi_turn_gymnasium/example.jsonl', durability: 'turn' as const },
];
const server = await startTestServer();
try {
  for (const [i, run] of RUNS.entries()) {
    const runDir = await tempDir('gymflow-histories-');
    const config = runConfig({
      runDir,
      envName: run.envName,
      inputFile: path.resolve(run.input),
      limit: 2,
      numRepeats: 2,
      concurrency: 2,
      stepsPerExecution: 'stepsPerExecution' in run ? run.stepsPerExecution : undefined,
      durability: run.durability,
      model: { accuracy: 0.5, seed: 3 },
    });
    await runInProcess(server, config);
    const histories = await captureRunHistories(await server.client(), runWorkflowId(config.runId));
    const files = await saveHistories(histories, `${name}-${i}`);
    console.log(`saved ${files.length} histories of ${run.envName} (${run.durability}):\n${files.join('\n')}`);
  }
} finally {
  await server.stop();
}
