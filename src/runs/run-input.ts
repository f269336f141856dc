// The run workflow's input as a zod schema: the run's configuration without what only the client uses
// (its task queue, exporters). Published as JSON Schema (docs/api/run-workflow-input.schema.json) so other
// languages' Temporal SDKs can start runs; it names secrets by environment variable, never holds them.
import { z } from 'zod';
import type { RunInput as WorkflowRunInput } from '../../workflows/definitions';
import { RunConfig } from './manifest';

export const RunInput = RunConfig.pick({
  runId: true,
  runDir: true,
  store: true,
  env: true,
  inputFile: true,
  model: true,
  judgeModel: true,
  numRepeats: true,
  limit: true,
  concurrency: true,
  maxSteps: true,
  historyPolicy: true,
  retry: true,
  stepsPerExecution: true,
  durability: true,
  shards: true,
  rolloutQueue: true,
}).strict();
export type RunInput = z.infer<typeof RunInput>;

// The workflow's own RunInput and this schema are one shape; a change to either fails the type check here.
const _sameInput: [RunInput, WorkflowRunInput] = [{} as WorkflowRunInput, {} as RunInput];
void _sameInput;

/** The JSON Schema of the run workflow's input, as a workflow receives it (defaults applied, so required). */
export function runInputJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(RunInput, { target: 'draft-2020-12', io: 'output' }),
    $id: 'https://gymflow.dev/schemas/run-workflow-input.schema.json',
    title: 'evalRunWorkflow input',
    description: "The single argument of Gymflow's evalRunWorkflow (workflow id gymflow-run-<runId>). Secrets are named by environment variable (api_key_env) and read by the worker, never carried here.",
  };
}
