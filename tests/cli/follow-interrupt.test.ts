// Ctrl-C on a follower that runs no worker, at the worst moment: the instant its handler is in place,
// before the wait for the result has begun. It once printed "interrupted" and then waited for ever
// (the abort came before anything listened for it). Real Temporal dev server; the run's workflow has
// no worker, so only the signal can end the follow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { followRun } from '../../src/cli/commands/follow';
import { temporalSettingsFromEnv } from '../../src/temporal/connection';
import { tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

describe('gym eval follow: Ctrl-C', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('ends the follow when the signal comes as soon as the handler is installed', async () => {
    const client = await server.client();
    const handle = await client.workflow.start('runWorkflow', { taskQueue: 'nobody-polls-this', workflowId: `follow-interrupt-${Date.now()}`, args: [] });
    const session = { settings: temporalSettingsFromEnv({ TEMPORAL_ADDRESS: server.address }), client, reconnect: async () => {}, close: async () => {} };
    const runDir = await tempDir('gymflow-follow-');
    const said: string[] = [];
    const before = process.listenerCount('SIGINT');
    const exitCode = process.exitCode;
    try {
      const follow = followRun({
        session,
        handle,
        runDir,
        taskQueue: 'nobody-polls-this',
        withWorker: false,
        logger: pino({ level: 'silent' }),
        say: (l) => void said.push(l),
        minCoverage: 1,
        reconnectTimeoutMs: 10_000,
      });
      let settled = false;
      void follow.finally(() => (settled = true)).catch(() => {});
      while (process.listenerCount('SIGINT') === before && !settled) await new Promise((r) => setImmediate(r));
      process.emit('SIGINT');
      const ended = await Promise.race([follow, new Promise<'still following'>((r) => setTimeout(() => r('still following'), 15_000).unref())]);
      expect(ended).toBeUndefined();
      expect(said.at(-1)).toMatch(/^interrupted: the run is kept in Temporal; continue it with `gym eval resume /);
      expect(process.exitCode).toBe(130);
      // The follower leaves nothing listening behind.
      expect(process.listenerCount('SIGINT')).toBe(before);
    } finally {
      process.exitCode = exitCode;
      await handle.terminate().catch(() => {});
    }
  });
});
