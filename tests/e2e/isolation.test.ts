// Runs do not execute each other's work: each run is on its own task queue, so a worker started for
// one run (with its environment and API keys) never picks up another run's rollouts, and a run whose
// folder name is shared with another run is still its own workflow.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../workflows/definitions';
import { runConfig, runInProcess, startRunWorkflow, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const INPUT = path.resolve(import.meta.dirname, '../fixtures/nemo-gym/mcqa/example.jsonl');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('two runs on one server', () => {
  it('never share work: a worker for run B leaves run A untouched', async () => {
    const a = runConfig({ runDir: path.join(await tempDir(), 'same'), envName: 'mcqa', inputFile: INPUT, numRepeats: 2 });
    const b = runConfig({ runDir: path.join(await tempDir(), 'same'), envName: 'mcqa', inputFile: INPUT, numRepeats: 3 });
    expect(a.runId).not.toBe(b.runId);
    expect(a.taskQueue).not.toBe(b.taskQueue);
    const handleA = await startRunWorkflow(server, a);
    const resultB = (await runInProcess(server, b)) as RunResult;
    expect(resultB.metrics.rollouts_recorded).toBe(15);
    expect(resultB.metrics.pass_at_k).toHaveProperty('pass@3');
    // Run A has no worker of its own: nothing of it ran, and it still waits for one.
    expect((await handleA.describe()).status.name).toBe('RUNNING');
    expect(existsSync(path.join(a.runDir, 'rollouts.jsonl')) ? readFileSync(path.join(a.runDir, 'rollouts.jsonl'), 'utf8') : '').toBe('');
    await handleA.terminate('test over');
  }, 300_000);
});
