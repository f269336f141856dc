// NeMo Gym's agentif: AgentIF's agentic instruction following. Each row's constraints are graded by their
// own pipelines of judge prompts and Python checks; the reward is ISR, 1 when every graded one passed.
import { z } from 'zod';
import type { ResponseObject } from '../../schemas/responses';
import { createLogger } from '../../util/logger';
import { defineEnvironment } from '../define';
import { askJudge, judgeMessage } from '../equivalence_llm_judge/judge';
import { responseText } from '../longmemeval';
import type { VerifyContext } from '../types';
import { CodeChecker } from './checker';
import { scoreConstraint, type Graders } from './score';
import { AgentIFTask, type AgentIFConstraint } from './task';
import { stripThink } from './verdict';
import { BENCHMARK_ONLY } from '../evaluation-only';

export { AgentIFTask } from './task';

/** configs/agentif.yaml's judge_responses_create_params (its input is the step's prompt). */
const JUDGE_PARAMS = { max_output_tokens: 1024, temperature: 0.0, top_p: 1.0 };

const DIMENSIONS = new Set(['unconditional', 'conditional', 'example_driven']);
const TYPES = new Set(['formatting', 'semantic', 'resource']);

type Tally = Record<string, { n_true: number; n_false: number }>;

function bump(tally: Tally, key: string, passed: boolean) {
  const counts = (tally[key] ??= { n_true: 0, n_false: 0 });
  if (passed) counts.n_true++;
  else counts.n_false++;
}

function graders(ctx: VerifyContext<unknown>, checker: CodeChecker): Graders {
  return {
    async judge(prompt) {
      const reply = await askJudge(ctx, { ...JUDGE_PARAMS, input: [judgeMessage('user', prompt)] });
      return stripThink(responseText(reply)) || null;
    },
    code: (source, input) => checker.check(source, input),
  };
}

function failureReason(counts: { n_true: number; n_false: number; n_error: number }): string {
  if (counts.n_error) return 'constraint_not_gradable';
  if (counts.n_false) return 'constraint_failed';
  return counts.n_true ? '' : 'no_graded_constraints';
}

/** The settings a run may give. */
export const AgentIFSettings = z.object({
  /** Runs the code checks without a jail, for machines without bubblewrap: the model's eval()ed text can then read keys and files. */
  unsafe_no_isolation: z.boolean().optional(),
});

async function verifyAgentIF(isolation: 'bwrap' | 'none', task: AgentIFTask, response: ResponseObject, ctx: VerifyContext<unknown>) {
  const meta = task.verifier_metadata ?? {};
  const constraints: AgentIFConstraint[] = meta.constraints ?? [];
  const text = stripThink(responseText(response));
  const checker = new CodeChecker(isolation);
  const grade = graders(ctx, checker);
  const counts = { n_true: 0, n_false: 0, n_skipped: 0, n_error: 0 };
  const byDimension: Tally = {};
  const byType: Tally = {};
  try {
    // One at a time, as NeMo Gym does: a row's judge calls do not pile up at once.
    for (const constraint of constraints) {
      const outcome = await scoreConstraint(constraint, text, grade);
      if (outcome === 'skipped') counts.n_skipped++;
      else if (outcome === 'error') counts.n_error++;
      else {
        counts[outcome ? 'n_true' : 'n_false']++;
        if (constraint.dimension && DIMENSIONS.has(constraint.dimension)) bump(byDimension, constraint.dimension, outcome);
        const types = Array.isArray(constraint.type) ? constraint.type : [constraint.type];
        for (const t of types) if (t && TYPES.has(t)) bump(byType, t, outcome);
      }
    }
  } finally {
    await checker.close();
  }
  const graded = counts.n_true + counts.n_false;
  const isrPass = graded > 0 && counts.n_false === 0 && counts.n_error === 0 ? 1 : 0;
  const reason = failureReason(counts);
  return {
    reward: isrPass,
    ...counts,
    n_null: counts.n_skipped + counts.n_error,
    isr_pass: isrPass,
    isr_counted: graded || counts.n_error ? 1 : 0,
    by_dimension: byDimension,
    by_type: byType,
    query_id: meta.query_id ?? null,
    turn_id: meta.turn_id ?? null,
    ...(reason ? { failure_reason: reason } : {}),
  };
}

export function createAgentIF(settings: z.infer<typeof AgentIFSettings> = {}) {
  const isolation = settings.unsafe_no_isolation ? 'none' : 'bwrap';
  if (isolation === 'none') {
    createLogger('agentif').warn(
      "UNSAFE: agentif runs its code checks WITHOUT isolation (unsafe_no_isolation=true): the model's text they eval() can read this " +
        "machine's files and the worker's API keys and reach the network. Install Debian's bubblewrap package and drop the setting.",
    );
  }
  return defineEnvironment({
    name: 'agentif',
    evaluationOnly: BENCHMARK_ONLY,
    needsJail: isolation === 'bwrap',
    description: 'AgentIF agentic instruction following: each constraint graded by its judge prompts and Python checks; reward 1 when all graded constraints pass (ISR).',
    taskSchema: AgentIFTask,
    requiresJudge: true,
    configurable: { schema: AgentIFSettings, create: createAgentIF },
    verify: (task, response, ctx) => verifyAgentIF(isolation, task, response, ctx),
  });
}

export const agentif = createAgentIF();
