// `gym dataset generate-conversational` and `gym dataset materialize-conversational`: NeMo Gym's three
// conversational tool-use generator agents (domains, policies and tools, scenarios) and the materializers
// between them, ending in conversational_tool_use_simulation task rows (src/datasets/conversational/).
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { GymError } from '../../errors';
import { generateDomains, generatePolicyTools, generateScenarios, httpChatModel, loadPolicyToolAssets, loadScenarioAssets, type ChatModel } from '../../datasets/conversational/generate';
import { materializeDomains, materializePolicyTools, materializeScenarios, type Numbered } from '../../datasets/conversational/materialize';
import { PolicyToolInput, Profile, ScenarioInput } from '../../datasets/conversational/schema';
import { startGateway, type Gateway } from '../../gateway/server';
import { keyValueFlag, parseFlags, requireFlag } from '../args';
import { readModelSpecFile } from '../model-spec-file';

const STAGE_SETTINGS = {
  domains: z.strictObject({ followup_count: z.number().int().min(0).default(1), attempts: z.number().int().min(1).default(3) }),
  'policy-tools': z.strictObject({
    max_retries: z.number().int().min(0).default(20),
    use_refinement: z.boolean().default(true),
    initial_reference_count: z.number().int().min(0).max(8).default(8),
    policy_refine_reference_count: z.number().int().min(0).max(8).default(8),
    minimum_tool_count: z.number().int().min(0).default(0),
    cohesion_judge_count: z.number().int().min(0).default(3),
    cohesion_max_failure_fraction: z.number().min(0).max(1).default(0.5),
    golden_reference_count: z.number().int().min(0).max(8).default(2),
    golden_max_failure_fraction: z.number().min(0).max(1).default(0.5),
    seed: z.number().int().default(0),
  }),
  scenarios: z.strictObject({
    request_count: z.number().int().min(1).default(20),
    max_concurrency: z.number().int().min(1).default(20),
    scenarios_per_request: z.number().int().min(1).default(80),
    outside_policy_scope_fraction: z.number().min(0).max(1).default(0.1),
    attempts: z.number().int().min(1).default(3),
    seed: z.number().int().default(0),
  }),
};
type Stage = keyof typeof STAGE_SETTINGS;

const GENERATE_USAGE = `usage: gym dataset generate-conversational --stage domains|policy-tools|scenarios --input FILE --output FILE
         --model-spec SPEC [--judge-model-spec SPEC] [--assets-dir DIR] [--set KEY=VALUE ...] [--concurrency N]
  --stage domains       rows holding the domain prompt (one user message) → domain rollouts (result.candidates)
  --stage policy-tools  materialized domains → one accepted policy and tool set per domain (result.policy_md, result.tools)
  --stage scenarios     materialized policies → each domain's customer scenarios (result.scenarios)
  --model-spec SPEC     the generating model (a model spec file, as gym eval run's), called through an in-process gateway
  --judge-model-spec    the policy/tool judge (default: the generating model)
  --assets-dir DIR      NeMo Gym's prepared responses_api_agents/conversational_tool_use folder (its prompts/ and references/)
  --set KEY=VALUE       a stage setting (VALUE as JSON):
                        domains: followup_count (1), attempts (3)
                        policy-tools: max_retries (20), use_refinement, initial_reference_count (8), policy_refine_reference_count (8),
                          minimum_tool_count (0), cohesion_judge_count (3), cohesion_max_failure_fraction (0.5),
                          golden_reference_count (2), golden_max_failure_fraction (0.5), seed (0)
                        scenarios: request_count (20), max_concurrency (20), scenarios_per_request (80),
                          outside_policy_scope_fraction (0.1), attempts (3), seed (0)
  --concurrency N       input rows generated at once (1)
  writes one rollout row per input row; a row whose model output stays bad is an error naming the row and field`;

const MATERIALIZE_USAGE = `usage: gym dataset materialize-conversational --stage domains|policy-tools|scenarios --input FILE --output FILE [--profile general|proactive]
  --stage domains       domain rollouts → policy-tools inputs (needs --profile), deduplicated by casefolded name
  --stage policy-tools  accepted policy/tool rollouts → scenarios inputs
  --stage scenarios     scenario rollouts → conversational_tool_use_simulation task rows`;

async function readRows(file: string): Promise<Numbered[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new GymError('NOT_FOUND', `--input: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const rows: Numbered[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (e) {
      throw new GymError('BAD_INPUT', `${file}:${i + 1}: not JSON: ${(e as Error).message}`);
    }
    if (!row || typeof row !== 'object' || Array.isArray(row)) throw new GymError('BAD_INPUT', `${file}:${i + 1}: a row must be a JSON object`);
    rows.push({ line: i + 1, row: row as Record<string, unknown> });
  }
  return rows;
}

/** Writes the rows atomically (a temporary file renamed), as NeMo Gym's materializers do. */
async function writeRows(file: string, rows: unknown[]): Promise<void> {
  const tmp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.tmp`);
  await writeFile(tmp, rows.map((r) => JSON.stringify(r) + '\n').join(''));
  await rename(tmp, file);
}

function stageFlag(values: Record<string, unknown>, usage: string): Stage {
  const stage = requireFlag(values, 'stage', usage);
  if (!Object.hasOwn(STAGE_SETTINGS, stage)) throw new GymError('BAD_FLAG', `--stage must be domains, policy-tools or scenarios, got "${stage}"`);
  return stage as Stage;
}

function samePaths(input: string, output: string) {
  if (path.resolve(input) === path.resolve(output)) throw new GymError('BAD_FLAG', '--input and --output must differ');
}

export async function datasetMaterializeConversational(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values } = parseFlags(argv, { stage: { type: 'string' }, input: { type: 'string' }, output: { type: 'string' }, profile: { type: 'string' } }, MATERIALIZE_USAGE);
  if (values.help) return say(MATERIALIZE_USAGE);
  const stage = stageFlag(values, MATERIALIZE_USAGE);
  const input = requireFlag(values, 'input', MATERIALIZE_USAGE);
  const output = requireFlag(values, 'output', MATERIALIZE_USAGE);
  samePaths(input, output);
  const rollouts = await readRows(input);
  let rows: unknown[];
  if (stage === 'domains') {
    const profile = Profile.safeParse(values.profile);
    if (!profile.success) throw new GymError('BAD_FLAG', `--profile must be general or proactive${values.profile ? `, got "${values.profile}"` : ' (required with --stage domains)'}`);
    rows = materializeDomains(rollouts, profile.data, input);
  } else if (values.profile !== undefined) throw new GymError('BAD_FLAG', '--profile goes with --stage domains only (later stages carry the profile on each row)');
  else rows = stage === 'policy-tools' ? materializePolicyTools(rollouts, input) : materializeScenarios(rollouts, input);
  await writeRows(output, rows);
  say(`${stage}: ${rows.length} rows → ${output}`);
}

/** Starts a loopback gateway serving the spec files' models; returns a chat model per spec. */
async function modelsThroughGateway(specs: string[], runDir: string, logger: Logger): Promise<{ gateway: Gateway; models: ChatModel[] }> {
  const gateway = await startGateway({ host: '127.0.0.1', port: 0, logger: logger.child({ component: 'gateway' }) });
  try {
    const models = specs.map((file, i) => {
      const name = gateway.register(readModelSpecFile(file, i === 0 ? '--model-spec' : '--judge-model-spec', { envName: 'conversational_tool_use_simulation', runDir }));
      return httpChatModel(gateway.url, name, gateway.token);
    });
    return { gateway, models };
  } catch (e) {
    await gateway.close();
    throw e;
  }
}

export async function datasetGenerateConversational(argv: string[], logger: Logger, say: (line: string) => void): Promise<void> {
  const { values } = parseFlags(
    argv,
    {
      stage: { type: 'string' },
      input: { type: 'string' },
      output: { type: 'string' },
      'model-spec': { type: 'string' },
      'judge-model-spec': { type: 'string' },
      'assets-dir': { type: 'string' },
      set: { type: 'string', multiple: true },
      concurrency: { type: 'string' },
    },
    GENERATE_USAGE,
  );
  if (values.help) return say(GENERATE_USAGE);
  const stage = stageFlag(values, GENERATE_USAGE);
  const input = requireFlag(values, 'input', GENERATE_USAGE);
  const output = requireFlag(values, 'output', GENERATE_USAGE);
  samePaths(input, output);
  const spec = requireFlag(values, 'model-spec', GENERATE_USAGE);
  const concurrency = values.concurrency === undefined ? 1 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new GymError('BAD_FLAG', `--concurrency must be a positive integer, got "${values.concurrency}"`);
  const raw = keyValueFlag(values, 'set');
  const parsed = STAGE_SETTINGS[stage].safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GymError('BAD_FLAG', `--set ${issue.path.join('.') || (issue as { keys?: string[] }).keys?.join(', ') || '(settings)'}: ${issue.message}`);
  }
  if (stage !== 'domains' && values['assets-dir'] === undefined) throw new GymError('BAD_FLAG', `--stage ${stage} needs --assets-dir (NeMo Gym's prepared prompt assets)`);
  if (stage !== 'policy-tools' && values['judge-model-spec'] !== undefined) throw new GymError('BAD_FLAG', '--judge-model-spec goes with --stage policy-tools only');
  const rows = await readRows(input);
  const assetsDir = values['assets-dir'] as string | undefined;
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'gym-conversational-'));
  const started = await modelsThroughGateway([spec, ...(values['judge-model-spec'] ? [values['judge-model-spec'] as string] : [])], runDir, logger).catch(async (e: unknown) => {
    await rm(runDir, { recursive: true, force: true });
    throw e;
  });
  const { gateway, models } = started;
  const [model, judge = model] = models as [ChatModel, ChatModel?];
  try {
    const where = (line: number) => `${input}:${line}`;
    let one: (r: Numbered) => Promise<unknown>;
    if (stage === 'domains') {
      const s = parsed.data as z.infer<(typeof STAGE_SETTINGS)['domains']>;
      one = (r) => generateDomains(r.row, where(r.line), model, s);
    } else if (stage === 'policy-tools') {
      const s = parsed.data as z.infer<(typeof STAGE_SETTINGS)['policy-tools']>;
      const assets = { general: loadPolicyToolAssets(assetsDir!, 'general'), proactive: undefined as ReturnType<typeof loadPolicyToolAssets> | undefined };
      one = (r) => {
        const row = PolicyToolInput.safeParse(r.row);
        if (!row.success) throw new GymError('BAD_INPUT', `${where(r.line)}: not a policy-tools input row: ${row.error.issues[0]!.path.join('.')}: ${row.error.issues[0]!.message}`);
        const a = row.data.profile === 'general' ? assets.general : (assets.proactive ??= loadPolicyToolAssets(assetsDir!, 'proactive'));
        return generatePolicyTools(row.data, where(r.line), model, judge, a, s);
      };
    } else {
      const s = parsed.data as z.infer<(typeof STAGE_SETTINGS)['scenarios']>;
      const assets = loadScenarioAssets(assetsDir!);
      one = (r) => {
        const row = ScenarioInput.safeParse(r.row);
        if (!row.success) throw new GymError('BAD_INPUT', `${where(r.line)}: not a scenarios input row: ${row.error.issues[0]!.path.join('.')}: ${row.error.issues[0]!.message}`);
        return generateScenarios(row.data, where(r.line), model, assets, s);
      };
    }
    const out: unknown[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, rows.length) }, async () => {
        while (next < rows.length) {
          const i = next++;
          out[i] = await one(rows[i]!);
        }
      }),
    );
    await writeRows(output, out);
    say(`${stage}: ${out.length} rollout rows → ${output}`);
  } finally {
    await gateway.close();
    await rm(runDir, { recursive: true, force: true });
  }
}
