// `gym eval pause|unpause|cancel|concurrency`: steer a running run through its workflow's signals
// and its concurrency update.
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { resolveRun } from '../../runs/client';
import { steerRun } from '../../runs/control';
import { MAX_CONCURRENCY } from '../../../workflows/definitions';
import { intFlag, parseFlags } from '../args';
import { openSession } from '../session';

const USAGE = `usage: gym eval pause <run>          stop starting new rollouts (those in flight finish)
       gym eval unpause <run>        start rollouts again
       gym eval concurrency <run> N  change how many rollouts are in flight; prints the value the run applied
       gym eval cancel <run> [--abandon]
                                     cancel the run: by default the rollouts in flight finish first and the run
                                     ends as cancelled with its metrics; --abandon stops them where they are
                                     (they stay missing from the files). gym eval resume plays what is missing.`;

type Action = 'pause' | 'unpause' | 'cancel' | 'concurrency';

async function control(action: Action, argv: string[], _logger: Logger, say: (line: string) => void) {
  const { values, positionals } = parseFlags(argv, action === 'cancel' ? { abandon: { type: 'boolean' } } : {}, USAGE);
  if (values.help) return say(USAGE);
  const expected = action === 'concurrency' ? 2 : 1;
  if (positionals.length !== expected) throw new GymError('BAD_FLAG', `gym eval ${action}: wrong arguments\n\n${USAGE}`);
  // Checked before connecting: a bad value is the user's to fix, whatever the server says.
  const concurrency = action === 'concurrency' ? intFlag({ concurrency: positionals[1] }, 'concurrency', { min: 1, max: MAX_CONCURRENCY })! : undefined;
  const { workflowId } = await resolveRun(positionals[0]!);
  const session = await openSession(say);
  try {
    if (action === 'concurrency') {
      const applied = await steerRun(session.client, workflowId, { action, value: concurrency! });
      return say(`concurrency of ${workflowId} is now ${applied}`);
    }
    if (action === 'cancel') {
      await steerRun(session.client, workflowId, { action, abandon: values.abandon === true });
      return say(
        values.abandon
          ? `cancel: sent to ${workflowId}; the rollouts in flight are abandoned (gym eval resume plays them later)`
          : `cancel: sent to ${workflowId}; no new rollouts start, those in flight finish, then the run ends as cancelled`,
      );
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
