// AgentIF's code checks: the dataset's Python check_following run on the response in a bubblewrap jail
// (checker.py), since the checks eval() pieces of the model's text. One jailed process serves a verify.
import { chmod, copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { GymError } from '../../errors';
import { SYSTEM_LIBRARIES, findOnPath, launchJail, type Jail, type JailExit } from '../../sandboxes/local/bwrap';

const CHECKER = fileURLToPath(new URL('./checker.py', import.meta.url));
// The distribution's interpreter: a version-manager shim on PATH starts ten times slower.
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : (findOnPath('python3') ?? 'python3');
/** One check's limit (NeMo Gym has none: a check that never returns holds its verify forever). */
export const CHECK_DEADLINE_MS = 30_000;
const SESSION_DEADLINE_MS = 30 * 60_000;
const MEMORY_BYTES = 2 * 1024 ** 3;
const UNSAFE_HINT = 'give agentif the setting unsafe_no_isolation=true (--env-option unsafe_no_isolation=true)';
const STARTED = '{"started": true}';
const START_ATTEMPTS = 3;

/** What check_following returned: text (read as a verdict), None, or anything else by its truthiness. */
export const CheckValue = z.discriminatedUnion('type', [
  z.object({ type: z.literal('str'), text: z.string() }),
  z.object({ type: z.literal('none') }),
  z.object({ type: z.literal('truthy'), truthy: z.boolean() }),
]);
export type CheckValue = z.infer<typeof CheckValue>;

const Reply = z.union([z.object({ value: CheckValue }), z.object({ error: z.string() })]);
export type CheckReply = z.infer<typeof Reply>;

/** A code check's input: the text so far, or `true` after a check that returned a truthy non-text value. */
export type CheckInput = string | true;

function parseReply(line: string | undefined): CheckReply | undefined {
  if (line === undefined) return undefined;
  try {
    const parsed = Reply.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

interface Running {
  jail: Jail;
  dir: string;
  /** The jail's stdout lines, in order, each taken by the check waiting for it. */
  next(): Promise<string | undefined>;
}

/** Checks run one after another in one jailed interpreter, started on first use and again after a check ends it. */
export class CodeChecker {
  private running: Running | undefined;

  /** `none` runs the checks as a plain process: for machines without bubblewrap, and unsafe. */
  constructor(private readonly isolation: 'bwrap' | 'none' = 'bwrap') {}

  /** A started checker, or how the jail ended before the checker could start. */
  private async launch(): Promise<Running | { exit: JailExit }> {
    const dir = await mkdtemp(join(tmpdir(), 'gymflow-agentif-'));
    await chmod(dir, 0o755);
    const workspace = join(dir, 'workspace');
    const checker = join(dir, 'checker.py');
    await mkdir(workspace);
    await copyFile(CHECKER, checker);
    const jail = launchJail(
      {
        workspace,
        readOnly: [...SYSTEM_LIBRARIES, PYTHON, checker],
        env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: workspace, TMPDIR: workspace, PYTHONIOENCODING: 'utf-8' },
        limits: { cpuSeconds: SESSION_DEADLINE_MS / 1000, addressSpaceBytes: MEMORY_BYTES, processes: 256, fileSizeBytes: 64 * 1024 ** 2, openFiles: 256 },
        deadlineMs: SESSION_DEADLINE_MS,
        isolation: this.isolation,
      },
      [PYTHON, '-I', '-B', checker],
      UNSAFE_HINT,
    );
    const lines = createInterface({ input: jail.stdout })[Symbol.asyncIterator]();
    const running: Running = { jail, dir, next: async () => (await lines.next()).value as string | undefined };
    if ((await running.next()) === STARTED) return running;
    const exit = await jail.done;
    await rm(dir, { recursive: true, force: true });
    return { exit };
  }

  private async start(): Promise<Running> {
    for (let attempt = 1; ; attempt++) {
      const launched = await this.launch();
      if (!('exit' in launched)) return launched;
      const { exit } = launched;
      // bwrap could not make the jail's namespaces for want of processes or namespaces on a busy machine: transient.
      if (attempt < START_ATTEMPTS && exit.stderr.includes('Resource temporarily unavailable')) {
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
        continue;
      }
      // The checker never started: its interpreter or the jail is broken, not the response.
      throw new GymError('ENV_ERROR', `agentif code checks could not start ${PYTHON} in their jail (exit ${exit.exitCode ?? exit.signal}): ${exit.stderr.trim().slice(-2000)}`);
    }
  }

  /** Runs `source`'s check_following on `input`; its own failures (an exception, an exit, a timeout) are the reply's error. */
  async check(source: string, input: CheckInput): Promise<CheckReply> {
    const running = (this.running ??= await this.start());
    running.jail.stdin.write(`${JSON.stringify({ source, input })}\n`);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), CHECK_DEADLINE_MS)));
    const line = await Promise.race([running.next(), timedOut]);
    clearTimeout(timer);
    const reply = line === 'timeout' ? undefined : parseReply(line);
    if (reply) return reply;
    // The check took the interpreter down, wrote over the reply channel or ran too long: a fresh one runs the next.
    await this.close();
    return { error: line === 'timeout' ? `TimeoutError: the check ran past ${CHECK_DEADLINE_MS / 1000} s` : 'the check ended without a result' };
  }

  async close(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    if (!running) return;
    running.jail.stdin.end();
    running.jail.kill();
    await running.jail.done.catch(() => undefined);
    await rm(running.dir, { recursive: true, force: true });
  }
}
