// Verified Code QA (NeMo Gym's vcqa_agent): the model investigates a repository snapshot or git history with
// read-only file, search and shell tools, and its final answer is graded per must-have rubric item by a judge.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { pyStrip } from '../../python/str';
import { inputItems, type ResponseObject } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { grade } from './judge';
import { artifactUrl, snapshotTree } from './snapshot';
import { toolDefinitions, vcqaTools, type VcqaState } from './tools';

/** NeMo Gym's VcqaVerifierMetadata: what the row says about its working tree and rubric; other keys are kept. */
const VerifierMetadata = z
  .looseObject({
    task_id: z.string().nullish(),
    dataset_kind: z.enum(['fileset', 'githistory']),
    repo_full_name: z.string().nullish(),
    pre_merge_sha: z.string().nullish(),
    head_sha: z.string().nullish(),
    /** Joined to the artifact_url_prefix setting: the tarball (fileset) or git bundle (githistory). */
    artifact_key: z.string(),
    /** `{judge: [{title, importance, evidence_required?}, …]}`; githistory rows put it under `verifiers`. */
    rubric: z.record(z.string(), z.unknown()).nullish(),
    verifiers: z.record(z.string(), z.unknown()).nullish(),
    max_turns: z.number().int().nullish(),
  })
  // NeMo Gym finds this only when the rollout starts (and scores it 0); a row that cannot be played is refused.
  .refine((m) => m.dataset_kind !== 'githistory' || !!m.head_sha, { path: ['head_sha'], message: 'githistory rows require verifier_metadata.head_sha' });

const BaseTask = TaskRow.extend({ verifier_metadata: VerifierMetadata });
export type VcqaTask = z.infer<typeof BaseTask>;

const Settings = z.object({
  /** Where artifact keys point: a folder or file: URL, or an http(s) prefix (HF_TOKEN is sent when set). */
  artifact_url_prefix: z.string().min(1).optional(),
  /** Where working trees are kept, one per artifact. */
  snapshot_dir: z.string().min(1).optional(),
  /** NeMo Gym's include_distractor_tools. */
  include_distractor_tools: z.boolean().default(true),
});

const EXAMPLE_ARTIFACTS = fileURLToPath(new URL('./data/artifacts', import.meta.url));

/** The rubric: fileset rows carry it under `rubric`, githistory rows under `verifiers`. */
export function rubricOf(task: VcqaTask): unknown {
  const meta = task.verifier_metadata;
  return meta.rubric && Object.keys(meta.rubric).length ? meta.rubric : meta.verifiers;
}

/** The user messages' text, joined: what NeMo Gym shows the judge as the problem. */
export function problemStatement(task: VcqaTask): string {
  const input = task.responses_create_params.input;
  if (typeof input === 'string') return input;
  const parts: string[] = [];
  for (const item of inputItems(input) as { type?: string; role?: string; content?: unknown }[]) {
    if (item.role !== 'user' || (item.type !== undefined && item.type !== 'message')) continue;
    if (typeof item.content === 'string') parts.push(item.content);
    else if (Array.isArray(item.content)) for (const c of item.content as { text?: unknown }[]) if (typeof c?.text === 'string' && c.text) parts.push(c.text);
  }
  return pyStrip(parts.join('\n'));
}

/** The last assistant message that has text, its parts joined: the answer the judge grades. */
export function finalAnswer(response: ResponseObject): string {
  for (const item of [...response.output].reverse() as { type?: string; role?: string; content?: unknown }[]) {
    if (item.type !== 'message' || item.role !== 'assistant' || !Array.isArray(item.content)) continue;
    const texts = (item.content as { text?: unknown }[]).flatMap((c) => (typeof c?.text === 'string' && c.text ? [c.text] : []));
    if (texts.length) return pyStrip(texts.join('\n'));
  }
  return '';
}

function failureReason(error: string | null, reward: number): string | null {
  if (error === 'no must_have rubric items') return 'no_rubric';
  if (error === 'empty model answer') return 'empty_answer';
  if (error) return 'judge_reply_blank';
  return reward < 1 ? 'must_have_criteria_failed' : null;
}

export function createVcqa(options: z.input<typeof Settings> = {}) {
  const settings = Settings.parse(options);
  const prefix = settings.artifact_url_prefix ?? EXAMPLE_ARTIFACTS;
  const root = path.resolve(settings.snapshot_dir ?? path.join(tmpdir(), 'gymflow-vcqa-trees'));
  const treeOf = (task: VcqaTask) => {
    const meta = task.verifier_metadata;
    return snapshotTree(root, { datasetKind: meta.dataset_kind, artifactUrl: artifactUrl(prefix, meta.artifact_key), headSha: meta.head_sha });
  };
  const definitions = toolDefinitions(settings.include_distractor_tools);
  // NeMo Gym's inject_tools: the tools are added to what the row offers, so the model is asked with them.
  const taskSchema = BaseTask.transform((task) => {
    const offered = task.responses_create_params.tools ?? [];
    const names = new Set(offered.map((t) => (t as { name?: unknown }).name));
    return { ...task, responses_create_params: { ...task.responses_create_params, tools: [...offered, ...definitions.filter((d) => !names.has(d.name))] } };
  });
  return defineEnvironment<VcqaTask, VcqaState>({
    name: 'vcqa',
    description: 'Verified Code QA: investigate a repository snapshot or git history with read-only tools; reward is the share of must-have rubric items a judge passes.',
    needsJail: true,
    taskSchema,
    requiresJudge: true,
    configurable: { schema: Settings, create: createVcqa },
    // Verify reads only the task and the final answer; the scratchpad serves the tools.
    reverifyMode: 'stateless',
    // The working tree is made by the first tool call that needs it, not here: re-verifying a rollout seeds a
    // session too, and grading needs no tree.
    seedSession: () => ({ todos: '' }),
    tools: vcqaTools((task) => treeOf(task as VcqaTask), settings.include_distractor_tools),
    async verify(task, response, ctx) {
      const final_answer = finalAnswer(response);
      const result = await grade(ctx, rubricOf(task), problemStatement(task), final_answer);
      return {
        reward: result.reward,
        error: result.error,
        judge_per_item: result.per_item,
        must_pass: result.must_pass,
        must_total: result.must_total,
        final_answer,
        failure_reason: failureReason(result.error, result.reward),
      };
    },
  });
}

export const vcqa = createVcqa();
