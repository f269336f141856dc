// `gym eval pause|unpause|cancel|concurrency`: steer a running run through its workflow's signals.
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { resolveRun } from '../../runs/client';
import { steerRun } from '../../runs/control';
import { MAX_CONCURRENCY } from '../../../workflows/definitions';
import { intFlag, parseFlags } from '../args';
import { openSession } from '../session';

const USAGE = `usage: gym eval pause <run>          stop starting new rollouts (those in flight finish)
       gym eval unpause <run>        start rollouts again
       gym eval concurrency <run> N  change how many rollouts are in flight
       gym eval cancel <run>         cancel the run (gym eval resume continues it later)`;

async function control(action: 'pause' | 'unpause' | 'cancel' | 'concurrency', argv: string[], logger: Logger, say: (line: string) => void) {
  const { values, positionals } = parseFlags(argv, {}, USAGE);
  if (values.help) return say(USAGE);
  const expected = action === 'concurrency' ? 2 : 1;
  if (positionals.length !== expected) throw new GymError('BAD_FLAG', `gym eval ${action}: wrong arguments\n\n${USAGE}`);
  const { workflowId } = await resolveRun(positionals[0]!);
  const session = await openSession(logger, say);
  try {
    if (action === 'concurrency') {
      const value = intFlag({ concurrency: positionals[1] }, 'concurrency', { min: 1, max: MAX_CONCURRENCY })!;
      const applied = await steerRun(session.client, workflowId, { action, value });
      return say(`concurrency of ${workflowId} is now ${applied}`);
    }
    await steerRun(session.client, workflowId, { action });
    say(`${action}: sent to ${workflowId}`);
  } finally {
    await session.close();
  }
}

export const evalPause = (argv: string[], logger: Logger, say: (line: string) => void) => control('pause', argv, logger, say);
export const evalUnpause = (argv: string[], logger: Logger, say: (line: string) => void) => control('unpause', argv, logger, say);
export const evalCancel = (argv: string[], logger: Logger, say: (line: string) => void) => control('cancel', argv, logger, say);
export const evalConcurrency = (argv: string[], logger: Logger, say: (line: string) => void) => control('concurrency', argv, logger, say);
