// Throughput of a durable run on this machine: rollouts per second, activities per second, history
// events per rollout and worker memory, for a single-turn (mcqa) and a multi-step tool-calling
// environment with the zero-latency mock policy, on the embedded dev server (SQLite).
//   npm run bench [-- <rollouts per environment>]
import path from 'node:path';
import { runConfig, runInProcess, tempDir } from '../tests/helpers/run';
import { startTestServer } from '../tests/helpers/temporal-server';
import { captureRunHistories } from '../tests/helpers/histories';
import { runWorkflowId } from '../workflows/definitions';

const ROLLOUTS = Number(process.argv[2] ?? 200);
const CASES = [
  { env: 'mcqa', input: 'src/environments/mcqa/data/example.jsonl', tasks: 5 },
  { env: 'example_multi_step', input: 'src/environments/example_multi_step/data/example.jsonl', tasks: 5 },
];

const server = await startTestServer();
const rows: string[] = [];
try {
  for (const c of CASES) {
    for (const concurrency of [16, 64]) {
      const runDir = await tempDir(`gymflow-bench-${c.env}-`);
      const config = runConfig({
        runDir,
        envName: c.env,
        inputFile: path.resolve(c.input),
        numRepeats: Math.ceil(ROLLOUTS / c.tasks),
        concurrency,
        model: { accuracy: 0.7 },
      });
      const started = performance.now();
      const result = await runInProcess(server, config);
      const seconds = (performance.now() - started) / 1000;
      const histories = await captureRunHistories(await server.client(), runWorkflowId(config.runId));
      const rollouts = histories.filter((h) => h.workflowId.includes('/rollout-'));
      const events = rollouts.reduce((a, h) => a + (JSON.parse(h.json) as { events: unknown[] }).events.length, 0);
      const activities = rollouts.reduce((a, h) => a + (h.json.match(/EVENT_TYPE_ACTIVITY_TASK_COMPLETED/g)?.length ?? 0), 0);
      const bytes = rollouts.reduce((a, h) => a + h.json.length, 0);
      rows.push(
        `| ${c.env} | ${result.metrics.rollouts_recorded} | ${concurrency} | ${seconds.toFixed(1)} | ${(result.metrics.rollouts_recorded / seconds).toFixed(1)} | ` +
          `${(activities / seconds).toFixed(0)} | ${(events / rollouts.length).toFixed(0)} | ${(bytes / rollouts.length / 1024).toFixed(1)} | ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} |`,
      );
      console.log(rows.at(-1));
    }
  }
} finally {
  await server.stop();
}
console.log(['', '| environment | rollouts | concurrency | seconds | rollouts/s | activities/s | events/rollout | history KiB/rollout | RSS MiB |', '|---|---|---|---|---|---|---|---|---|', ...rows].join('\n'));
