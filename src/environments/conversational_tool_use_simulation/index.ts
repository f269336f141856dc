// NeMo Gym's conversational_tool_use_simulation with its policy agent: the policy model serves a simulated
// customer under a domain policy, calling the domain's generated tools, whose results are simulated too.
// Customer, tools and judge are the environment's model (the run's judge model, as NeMo Gym's three roles
// share one simulator_model); the reward is the judge's staged verdict on the whole conversation.
import { z } from 'zod';
import { defineEnvironment } from '../define';
import { answerTurn, openConversation, replayTrajectory, type LoopSettings, type SimulationState } from './simulate';
import { SimulationTask } from './schema';
import { INVALID, LABEL, newTrajectory, recordFailure } from './trajectory';
import { verifyTrajectory, type VerifySettings } from './verify';

export { SimulationTask } from './schema';

/** NeMo Gym's canonical config (configs/conversational_tool_use_simulation.yaml) for the server and its agent. */
const Settings = z.object({
  enable_llm_judge: z.boolean().default(true),
  enable_termination: z.boolean().default(true),
  enforce_transfer_ground_truth: z.boolean().default(true),
  generation_attempts: z.number().int().min(1).default(3),
  max_agent_steps: z.number().int().min(1).default(50),
});
type Settings = z.infer<typeof Settings>;

export function createConversationalToolUseSimulation(options: Partial<Settings> = {}) {
  const settings: LoopSettings & VerifySettings = Settings.parse(options);
  return defineEnvironment<SimulationTask, SimulationState>({
    name: 'conversational_tool_use_simulation',
    description: "A policy serves a simulated customer with simulated tools under a domain policy; reward is the judge's staged verdict on the conversation.",
    taskSchema: SimulationTask,
    agent: 'gymnasium_agent',
    requiresJudge: settings.enable_llm_judge,
    configurable: { schema: Settings.partial(), create: createConversationalToolUseSimulation },
    // Verify reads the loop's trajectory; without it (a stored rollout) it replays the transcript, which holds
    // every message, so only what the live loop alone saw (a simulator that produced nothing) is lost.
    reverifyMode: 'stateless',
    seedSession: () => ({ trajectory: newTrajectory() }),
    reset: (task, { model }) => openConversation(task, model, settings),
    step: (task, state, turn, { model }) => answerTurn(task, state, turn, model, settings),
    async verify(task, response, { state, judge }) {
      const played = state?.trajectory;
      const t = played && (played.messages.length || played.terminal_state) ? structuredClone(played) : replayTrajectory(task, response.output, settings);
      // The policy's last response was cut short (length, content filter): NeMo Gym records that as the agent's failure.
      if (!t.terminal_state && response.status === 'incomplete') {
        recordFailure(t, INVALID.messageGeneration, LABEL.agent, `Model response was incomplete: ${JSON.stringify(response.incomplete_details ?? null)}`);
      }
      return verifyTrajectory(task, t, settings, judge);
    },
  });
}

export const conversationalToolUseSimulation = createConversationalToolUseSimulation();
