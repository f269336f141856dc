// `gym eval reverify`: recompute the rewards of recorded rollouts with the verify of the environment each
// was played against, without calling the policy, and report where they differ from the recorded ones.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { GymError } from '../../errors';
import { envKey, type EnvRef } from '../../environments/ref';
import { environmentNames, resolveEnvironment } from '../../environments/registry';
import type { JudgeCall } from '../../environments/types';
import { startGateway, type Gateway } from '../../gateway/server';
import type { ModelSpec } from '../../gateway/spec';
import { readRows, reverifyRollouts } from '../../reverify';
import { rowEnvRef } from '../../routing/row';
import { gatewayJudge } from '../../reverify/judge';
import { formatSummary, reverifiedRow, summarize } from '../../reverify/report';
import { writeFileAtomic } from '../../store/jsonl';
import { intFlag, keyValueFlag, parseFlags } from '../args';

export const EVAL_REVERIFY_USAGE = `usage: gym eval reverify <rollouts.jsonl> [--env <name>] [options]

  --env NAME           the environment of rows that do not name their own; a routed run's rows (gym eval run
                       --config) each carry theirs (_gf_environment) and are graded with it, so --env is needed
                       only for rows without one, or to change that environment's settings with --env-option
  --env-option KEY=VALUE   a setting of --env's environment, as \`gym eval run\` takes it (VALUE as JSON), repeatable
  --tasks FILE         task rows the rollouts were played from (default: tasks.jsonl beside the rollouts, when
                       present); rollouts join by _ng_task_index or by identical input
  --output FILE        where to write the re-verified rollouts (default: <rollouts>_reverified.jsonl)
  --force              re-verify a stateful environment by replaying the recorded tool calls into a fresh session
  --skip-unjoined      report rollouts without a task and re-verify the rest (default: refuse the file)
  --concurrency C      rollouts verified at once (default 8)
judge model:   --judge-model <mock|openai> --judge-model-name NAME --judge-model-url URL --api-key-env VAR
               --mock-replay <judge exchanges.jsonl> (mock judge: replay recorded judge replies)`;

const FLAGS = {
  env: { type: 'string' },
  'env-option': { type: 'string', multiple: true },
  tasks: { type: 'string' },
  output: { type: 'string', short: 'o' },
  force: { type: 'boolean' },
  'skip-unjoined': { type: 'boolean' },
  concurrency: { type: 'string' },
  'judge-model': { type: 'string' },
  'judge-model-name': { type: 'string' },
  'judge-model-url': { type: 'string' },
  'api-key-env': { type: 'string' },
  'mock-replay': { type: 'string', multiple: true },
} as const;

type Values = Record<string, string | boolean | string[] | undefined>;

function judgeSpec(values: Values, envName: string): ModelSpec | undefined {
  const backend = values['judge-model'] as string | undefined;
  if (backend === undefined) return undefined;
  if (backend === 'mock') {
    const replay = ((values['mock-replay'] as string[] | undefined) ?? []).map((f) => {
      if (!existsSync(f)) throw new GymError('NOT_FOUND', `--mock-replay file ${f} does not exist`);
      return path.resolve(f);
    });
    return { backend: 'mock', env: envName, seed: 0, accuracy: 1, latency_ms: 0, replay_files: replay };
  }
  if (backend === 'openai') {
    const name = values['judge-model-name'] as string | undefined;
    if (!name) throw new GymError('BAD_FLAG', '--judge-model openai needs --judge-model-name');
    return { backend: 'openai', model: name, base_url: values['judge-model-url'] as string | undefined, api_key_env: (values['api-key-env'] as string | undefined) ?? 'OPENAI_API_KEY' };
  }
  throw new GymError('BAD_FLAG', `--judge-model must be "mock" or "openai", got "${backend}"`);
}

function defaultTasksFile(rolloutsFile: string): string | undefined {
  const beside = path.join(path.dirname(rolloutsFile), 'tasks.jsonl');
  return beside !== rolloutsFile && existsSync(beside) ? beside : undefined;
}

function defaultOutputFile(rolloutsFile: string): string {
  const { dir, name } = path.parse(rolloutsFile);
  return path.join(dir, `${name}_reverified.jsonl`);
}

export async function evalReverify(argv: string[], logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(argv, FLAGS, EVAL_REVERIFY_USAGE);
  if (values.help) return say(EVAL_REVERIFY_USAGE);
  if (positionals.length !== 1) throw new GymError('BAD_FLAG', `give exactly one rollouts file\n\n${EVAL_REVERIFY_USAGE}`);
  const envName = values.env as string | undefined;
  if (envName !== undefined && !environmentNames().includes(envName)) throw new GymError('BAD_FLAG', `--env: unknown environment "${envName}"; known: ${environmentNames().join(', ')}`);
  if (envName === undefined && values['env-option'] !== undefined) throw new GymError('BAD_FLAG', '--env-option goes with --env <name> (the environment whose settings it sets)');
  const options = keyValueFlag(values, 'env-option');
  // Resolving validates the settings before any rollout is read.
  const env = envName === undefined ? undefined : resolveEnvironment({ name: envName, options });
  // A stamped row of --env's environment takes --env-option's settings over the ones it was played with.
  const stamped = (ref: EnvRef) => resolveEnvironment(ref.name === envName ? { ...ref, options: { ...ref.options, ...options } } : ref);
  const rolloutsFile = path.resolve(positionals[0]!);
  const tasksFile = values.tasks ? path.resolve(values.tasks) : defaultTasksFile(rolloutsFile);
  const outputFile = path.resolve(values.output ?? defaultOutputFile(rolloutsFile));
  if (outputFile === rolloutsFile || outputFile === tasksFile) throw new GymError('BAD_FLAG', `--output ${outputFile} would overwrite an input file`);
  const concurrency = intFlag(values, 'concurrency', { min: 1, fallback: 8 });
  if (env?.requiresJudge && values['judge-model'] === undefined) throw new GymError('BAD_FLAG', `environment "${envName}" grades with an LLM judge: pass --judge-model (mock or openai)`);

  const rollouts = await readRows(rolloutsFile, 'rollouts');
  const tasks = tasksFile ? await readRows(tasksFile, 'tasks') : undefined;
  const firstStamped = [...(tasks ?? []), ...rollouts].map((r) => rowEnvRef(r.row)).find((r) => r !== undefined);
  const spec = judgeSpec(values, envName ?? (firstStamped ? envKey(firstStamped) : 'reverify'));
  let gateway: Gateway | undefined;
  try {
    let judge: JudgeCall | undefined;
    if (spec) {
      gateway = await startGateway({ logger });
      judge = gatewayJudge(gateway, spec, 'reverify-judge');
    }
    const report = await reverifyRollouts({ env, stamped, rollouts, tasks, force: values.force, skipUnjoined: values['skip-unjoined'], judge, concurrency });
    await writeFileAtomic(outputFile, report.checked.map((c) => JSON.stringify(reverifiedRow(c)) + '\n').join(''));
    if (tasksFile) say(`tasks: ${tasksFile}`);
    for (const line of formatSummary(report, summarize(report))) say(line);
    say(`wrote ${report.checked.length} row(s) → ${outputFile}`);
  } finally {
    await gateway?.close();
  }
}
