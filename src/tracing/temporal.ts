// Temporal's own OpenTelemetry interceptors on a Gymflow worker: spans for workflow runs, activity and
// local-activity scheduling and activity executions, in the same provider as the rollout spans.
import { createRequire } from 'node:module';
import { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import type { Tracing } from './provider';

/** The workflow-side interceptors, bundled into the workflow code; replay tests bundle the same. */
export const WORKFLOW_TRACING_MODULES: string[] = [createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

/** Worker options that trace workflows and activities; without tracing, none. */
export function workerTracingOptions(tracing: Tracing | undefined): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (!tracing) return {};
  return {
    interceptors: {
      workflowModules: WORKFLOW_TRACING_MODULES,
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer: tracing.tracer }), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    // Workflow code cannot export; its spans leave the sandbox through this sink.
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
