// Every registered environment runs end to end in a durable eval with the mock policy, on a real
// Temporal server: the oracle's correct answers must earn full marks and its wrong answers less.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentNames, getEnvironment } from '../../src/environments/registry';
import { oracleFor } from '../../src/gateway/backends/mock/oracles';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

const ENV_DIR = path.resolve(import.meta.dirname, '../../src/environments');

/** The environment's shipped example rows: its own folder's data/example.jsonl. */
function exampleFile(name: string): string {
  const folder = readdirSync(ENV_DIR).find((d) => name === d || name.endsWith(`_${d}`)) ?? name;
  return path.join(ENV_DIR, folder, 'data', 'example.jsonl');
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

// Judge-graded environments are run end to end with a replayed judge in judge-e2e.test.ts, sandboxed ones
// (played by an external harness) in tests/e2e/harnesses-e2e.test.ts, desktop ones against a FAKE desktop in
// tests/e2e/osworld-e2e.test.ts.
describe.each(environmentNames().filter((n) => oracleFor(n) && !getEnvironment(n).requiresJudge && !getEnvironment(n).sandboxed && !getEnvironment(n).needsDesktop))('%s in a durable eval', (name) => {
  it('rewards the oracle when right and not when wrong', async () => {
    const inputFile = exampleFile(name);
    const play = async (accuracy: number) => runInProcess(server, runConfig({ runDir: await tempDir(`gymflow-${name}-`), envName: name, inputFile, limit: 3, model: { accuracy } }));
    // NeMo Gym's weather example rewards every episode: there is no wrong answer to check. Blackjack is a
    // game of chance: good play does not guarantee a win, only a finished game. The two runs are independent
    // and go at once: each mostly waits on its worker and the server.
    const judged = name !== 'example_single_tool_call' && name !== 'blackjack';
    const [right, wrong] = await Promise.all([play(1), judged ? play(0) : undefined]);
    expect(right.metrics.rollouts_recorded).toBe(right.metrics.rollouts_expected);
    if (name === 'blackjack') {
      const rewards = readFileSync(path.join(right.runDir, 'rollouts.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).reward);
      expect(rewards.every((r: number) => [-1, 0, 1, 1.5].includes(r))).toBe(true);
      return;
    }
    // Full marks: 1 for most environments; multi-reward environments may score above 1. OpenAir's reward is
    // a control cost (negative, no ceiling): the oracle's relief policy must only beat a wrong one.
    if (name !== 'openair_congestion') expect(right.metrics.mean_reward!).toBeGreaterThanOrEqual(1);
    if (!wrong) return;
    expect(wrong.metrics.rollouts_recorded).toBe(wrong.metrics.rollouts_expected);
    expect(wrong.metrics.mean_reward!).toBeLessThan(right.metrics.mean_reward!);
  });
});
