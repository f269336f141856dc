// A Gymflow worker: the model gateway plus every workflow and activity on one task queue (a run's own,
// or a shared pool's). One process is the default; more processes (on more machines) scale it out. A
// `rollouts` worker plays only the rollout grain's batches, on a run's rollout queue, with a cap of its own.
import path from 'node:path';
import { DefaultLogger, Runtime, Worker, makeTelemetryFilterString, type NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities } from '../activities';
import { reapOrphans } from '../src/sandboxes/gc';
import { startGateway, type Gateway, type GatewayOptions } from '../src/gateway/server';
import { installTracing } from '../src/tracing/provider';
import { WORKFLOW_TRACING_MODULES, workerTracingOptions } from '../src/tracing/temporal';
import { PACKAGE_ROOT } from '../src/util/paths';
import { Slots } from '../src/util/slots';
import { MAX_CONCURRENCY } from '../workflows/definitions';
import { workflowBundle } from './bundle';
import type { WorkerRole } from './roles';

export const WORKFLOWS_PATH = path.join(PACKAGE_ROOT, 'workflows', 'index.ts');

// The SDK's runtime is one per process, while this module may be evaluated more than once in one (a test
// runner that shares its process between test files): the mark is kept on the process, not the module.
const RUNTIME_INSTALLED = Symbol.for('gymflow.temporal-runtime-installed');

/** Routes the SDK's logs through pino; must run before the first connection or worker is made. */
export function installRuntime(logger: Logger): void {
  const marks = globalThis as { [RUNTIME_INSTALLED]?: boolean };
  if (marks[RUNTIME_INSTALLED]) return;
  marks[RUNTIME_INSTALLED] = true;
  Runtime.install({
    // Commands handle their own signals: Ctrl-C must leave the run resumable and say so.
    shutdownSignals: [],
    logger: new DefaultLogger('WARN', (entry) => {
      const level = entry.level.toLowerCase() as 'warn' | 'error' | 'info' | 'debug' | 'trace';
      logger[level === 'trace' ? 'debug' : level]({ ...entry.meta, sdk: true }, entry.message);
    }),
    telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN' }) } },
  });
}

export interface GymWorker {
  worker: Worker;
  gateway: Gateway;
  /** Runs until `until` settles (or forever), then shuts down the worker and the gateway. */
  run<T>(until?: Promise<T>): Promise<T | void>;
}

export async function createGymWorker(opts: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  logger: Logger;
  role?: WorkerRole;
  /** Rollouts this worker's batches play at once, over all of them (default: each batch's own width). */
  maxRollouts?: number;
  /** Where the gateway listens (default a free loopback port) and its token (default a fresh one). */
  gateway?: Omit<GatewayOptions, 'logger'>;
}): Promise<GymWorker> {
  // Before the gateway and the worker, so every span they start has somewhere to go.
  const tracing = installTracing('gymflow-worker', opts.logger);
  // A killed worker's sandboxes (their jails and folders) go before this one takes work.
  await reapOrphans(opts.logger.child({ component: 'sandbox-reaper' }));
  const gateway = await startGateway({ ...opts.gateway, logger: opts.logger.child({ component: 'gateway' }) });
  const { interceptors, sinks } = workerTracingOptions(tracing);
  const rolloutSlots = opts.maxRollouts ? new Slots(opts.maxRollouts) : undefined;
  const worker = await Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    // The interceptor modules are bundled in, so they are not passed again.
    ...(opts.role === 'rollouts' ? {} : { workflowBundle: await workflowBundle(WORKFLOWS_PATH, tracing ? WORKFLOW_TRACING_MODULES : [], opts.logger) }),
    activities: createActivities({ gateway, rolloutSlots }),
    interceptors: interceptors && { activity: interceptors.activity },
    sinks,
    // A batch plays at least one rollout at a time: more batches than slots would only wait on them.
    maxConcurrentActivityTaskExecutions: Math.min(200, opts.maxRollouts ?? 200),
    // Every rollout in flight in the "turn" grain is one local activity at a time.
    maxConcurrentLocalActivityExecutions: MAX_CONCURRENCY,
    maxCachedWorkflows: 1000,
    // On Ctrl-C or SIGTERM, in-flight steps get a moment to finish and be journaled; a longer grace
    // would let a shard's open workflow task keep running rounds long after the user asked to stop.
    shutdownGraceTime: '3s',
  });
  return {
    worker,
    gateway,
    async run(until) {
      try {
        return until ? await worker.runUntil(until) : await worker.run();
      } finally {
        await gateway.close();
        await tracing?.flush();
      }
    },
  };
}
