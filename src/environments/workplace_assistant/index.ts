// NeMo Gym's workplace assistant: 27 tools over a simulated company's email, calendar, analytics,
// project board, CRM and directory. Reward 1.0 when the episode's calls leave the tables as the
// ground-truth calls do (the order of calls and the index labels they produce matter).
import { z } from 'zod';
import { functionCalls } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { defineEnvironment } from '../define';
import { reply, type Tool } from '../types';
import { WORKPLACE_TOOLS, callRoute, replayCalls, type WorkplaceState } from './session';
import { differingTables } from './verify';

const GroundTruthCall = z.looseObject({ name: z.string(), arguments: z.string() });

export const WorkplaceTask = TaskRow.extend({
  /** The reference calls; NeMo Gym also accepts a string, which replays as no calls at all. */
  ground_truth: z.union([z.array(GroundTruthCall), z.string()]),
  id: z.number().int().optional(),
  category: z.string().optional(),
  environment_name: z.string().optional(),
});
export type WorkplaceTask = z.infer<typeof WorkplaceTask>;

// The route accepts any JSON object (FastAPI's extra="allow" model); everything else is the tool's business.
const AnyArgs = z.record(z.string(), z.unknown());

function routeTool(name: string): Tool<WorkplaceTask, WorkplaceState, Record<string, unknown>> {
  return {
    args: AnyArgs,
    run(args, { state }) {
      const { body, state: next } = callRoute(name, args, state);
      return reply(body, next);
    },
  };
}

export function groundTruthCalls(task: WorkplaceTask): z.infer<typeof GroundTruthCall>[] {
  return typeof task.ground_truth === 'string' ? [] : task.ground_truth;
}

export const workplaceAssistant = defineEnvironment<WorkplaceTask, WorkplaceState>({
  name: 'workplace_assistant',
  description: 'Simulated workplace tools (email, calendar, analytics, projects, CRM); reward when the final tables match the ground truth.',
  taskSchema: WorkplaceTask,
  // Verify replays the episode's calls on fresh tables: it needs the response, not the session.
  reverifyMode: 'stateless',
  seedSession: () => ({ applied: [] }),
  tools: Object.fromEntries(Object.keys(WORKPLACE_TOOLS).map((name) => [name, routeTool(name)])),
  verify(task, response) {
    const predicted = replayCalls(functionCalls(response.output));
    const expected = replayCalls(groundTruthCalls(task));
    const mismatched = differingTables(predicted, expected);
    if (mismatched.length === 0) return { reward: 1.0 };
    return { reward: 0.0, failure_reason: 'final_state_mismatch', mismatched_tables: mismatched };
  },
});
