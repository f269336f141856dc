// NeMo Gym's OSWorld: a model drives a real desktop (OSWorld's Ubuntu VM) by replying with pyautogui code, is
// shown a screenshot after every step, and is scored by OSWorld's own evaluator reading the desktop at the end.
// Gymflow speaks the desktop server's HTTP API (desktop.ts); the VM itself is the run's to provide (README).
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { GymError } from '../../errors';
import type { ConversationItem, MessageItem } from '../../schemas/responses';
import { TaskRow } from '../../schemas/task';
import { pyStrip } from '../../python/str';
import { defineEnvironment } from '../define';
import { parseActions, stripThinking } from './actions';
import { Desktop } from './desktop';
import { evaluate, OSWorldTask, runSetup, unsupportedParts, type SetupContext } from './evaluate';
import { fixLessThan } from './less-than';

export { OSWorldTask } from './evaluate';

/** The osworld agent's settings (configs/osworld_agent.yaml) that shape an episode, and where the desktop is. */
export const Settings = z.object({
  /** The desktop server inside the VM (OSWorld's port 5000, published by its container). */
  desktop_url: z.string().url().default('http://localhost:5000'),
  screen_width: z.number().int().min(1).default(1920),
  screen_height: z.number().int().min(1).default(1080),
  /** Also show the accessibility tree (XML) after each screenshot. */
  require_a11y_tree: z.boolean().default(false),
  client_password: z.string().default('password'),
  max_steps: z.number().int().min(1).default(15),
  /** Seconds to wait after each action (and a WAIT) before the next screenshot. */
  sleep_after_execution: z.number().min(0).default(10),
  /** binary: 1.0 when OSWorld's score is 1, else 0.0; raw: the score itself. */
  reward_mode: z.enum(['binary', 'raw']).default('binary'),
  /** One request to the desktop server (a screenshot, an action, a setup step). */
  step_timeout: z.number().positive().default(60),
});
export type Settings = z.infer<typeof Settings>;

const VerifierMetadata = z.looseObject({
  task_id: z.string().optional(),
  domain: z.string().optional(),
  osworld_task: OSWorldTask,
});

/** A row as NeMo Gym ships them: the whole OSWorld task under verifier_metadata.osworld_task. */
const Row = TaskRow.extend({ verifier_metadata: VerifierMetadata });

const SYSTEM_PROMPT = readFileSync(new URL('./prompts/screenshot_pyautogui.txt', import.meta.url), 'utf8');

export function systemPrompt(clientPassword: string): string {
  return pyStrip(SYSTEM_PROMPT.replaceAll('{CLIENT_PASSWORD}', clientPassword));
}

/** One step as NeMo Gym's osworld_steps records it. */
export interface StepRecord {
  step: number;
  model_text: string;
  actions: string[];
  done: boolean;
  error?: string;
}

export interface OSWorldState {
  /** False for a session seeded without an episode (a stored rollout being re-verified). */
  played: boolean;
  steps: StepRecord[];
  last_action: string | null;
  terminal_action: 'DONE' | 'FAIL' | null;
  horizon_reached: boolean;
  /** Why the episode stopped early: a request to the desktop that failed while acting. */
  error: string | null;
  /** Setup steps the desktop refused (OSWorld logs them and carries on). */
  setup_refused: string[];
}

const newState = (played: boolean): OSWorldState => ({ played, steps: [], last_action: null, terminal_action: null, horizon_reached: false, error: null, setup_refused: [] });

/** The osworld agent's reward from OSWorld's score. */
export function osworldReward(score: number, mode: Settings['reward_mode']): number {
  return mode === 'raw' ? score : score >= 1.0 ? 1.0 : 0.0;
}

/** The text of a turn's assistant messages (what NeMo Gym's model call returns as the message content). */
function turnText(turn: readonly ConversationItem[]): string {
  let text = '';
  for (const item of turn) {
    if ((item.type ?? 'message') !== 'message' || (item as MessageItem).role !== 'assistant') continue;
    const content = (item as MessageItem).content;
    if (typeof content === 'string') text += content;
    else for (const part of content) if (typeof part.text === 'string' && part.type !== 'refusal') text += part.text;
  }
  return text;
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

export function createOSWorld(options: Partial<Settings> = {}) {
  const settings = Settings.parse(options);
  const desktop = new Desktop({ url: settings.desktop_url, timeoutMs: settings.step_timeout * 1000 });
  const setupContext: SetupContext = { clientPassword: settings.client_password, screenWidth: settings.screen_width, screenHeight: settings.screen_height };

  // The osworld agent's system prompt goes in as the request's instructions (a system message for Chat backends);
  // the row's own input (the instruction) stays, so the first observation follows it.
  const taskSchema = Row.transform((row) => ({
    ...row,
    responses_create_params: { ...row.responses_create_params, instructions: row.responses_create_params.instructions ?? systemPrompt(settings.client_password) },
  }));
  type Task = z.output<typeof taskSchema>;

  /** What the model is shown of the desktop now: NeMo Gym's current-step text, the screenshot, the tree. */
  async function observe(task: Task): Promise<ConversationItem> {
    const screenshot = await desktop.screenshot();
    const mime = screenshot[0] === 0xff ? 'image/jpeg' : 'image/png';
    const instruction = task.verifier_metadata.osworld_task.instruction;
    const content: Record<string, unknown>[] = [
      { type: 'input_text', text: `Task: ${instruction}\nGiven the screenshot below, what's the next step you will take to help complete the task?` },
      { type: 'input_image', image_url: `data:${mime};base64,${Buffer.from(screenshot).toString('base64')}`, detail: 'high' },
    ];
    if (settings.require_a11y_tree) {
      const tree = await desktop.accessibilityTree();
      if (tree) content.push({ type: 'input_text', text: `Accessibility tree:\n${tree}` });
    }
    return { type: 'message', role: 'user', content } as ConversationItem;
  }

  return defineEnvironment<Task, OSWorldState>({
    name: 'osworld',
    description: 'Drive an OSWorld desktop VM with pyautogui code from screenshots; OSWorld evaluator reads the desktop for the reward (needs a desktop server).',
    taskSchema: taskSchema as unknown as z.ZodType<Task>,
    agent: 'gymnasium_agent',
    needsDesktop: true,
    // The reward is read off the desktop after the episode: a stored rollout cannot be graded again.
    reverifyMode: 'stateful',
    configurable: { schema: Settings.partial(), create: createOSWorld },
    seedSession: () => newState(false),
    async reset(task) {
      const osworld = task.verifier_metadata.osworld_task;
      const unsupported = unsupportedParts(osworld);
      if (unsupported.length) {
        throw new GymError('BAD_TASK', `osworld task ${osworld.id}: Gymflow cannot play it, its ${unsupported.join(', ')} ${unsupported.length > 1 ? 'are' : 'is'} not ported`);
      }
      if (osworld.proxy) throw new GymError('BAD_TASK', `osworld task ${osworld.id} needs OSWorld's proxy, which Gymflow does not set up`);
      const refused = await runSetup(desktop, osworld.config, setupContext);
      return { state: { ...newState(true), setup_refused: refused }, items: [await observe(task)] };
    },
    async step(task, state, turn) {
      const modelText = stripThinking(turnText(turn));
      const actions = parseActions(modelText);
      const next: OSWorldState = { ...state, steps: [...state.steps] };
      const record: StepRecord = { step: state.steps.length, model_text: modelText, actions, done: false };
      let lastAction = state.last_action;
      try {
        for (const action of actions) {
          lastAction = action;
          if (action === 'DONE' || action === 'FAIL') {
            next.terminal_action = action;
            record.done = true;
            break;
          }
          // DesktopEnv.step: WAIT sleeps once more; code is sent to the desktop; then it waits before looking.
          if (action === 'WAIT') await sleep(settings.sleep_after_execution);
          else await desktop.runPython(fixLessThan(action));
          await sleep(settings.sleep_after_execution);
        }
      } catch (e) {
        // NeMo Gym stops acting at a failed action and still evaluates; the sample is masked.
        record.error = next.error = `env.step() failed at step ${record.step}: ${(e as Error).message}`;
      }
      next.last_action = lastAction;
      next.steps.push(record);
      if (record.done || next.error) return { state: next, items: [], done: true };
      if (next.steps.length >= settings.max_steps) return { state: { ...next, horizon_reached: true }, items: [], done: true };
      return { state: next, items: [await observe(task)], done: false };
    },
    async verify(task, _response, { state }) {
      const osworld = task.verifier_metadata.osworld_task;
      if (!state?.played) {
        throw new GymError('VERIFY_ERROR', `osworld task ${osworld.id}: the reward is OSWorld's evaluator reading the desktop after the episode; a stored rollout cannot be graded again`);
      }
      let score = 0;
      let evaluationError: string | null = null;
      const postconfigRefused: string[] = [];
      try {
        score = await evaluate(desktop, osworld, state.last_action, setupContext, postconfigRefused);
      } catch (e) {
        evaluationError = `env.evaluate() failed: ${(e as Error).message}`;
      }
      const infrastructure = state.error ? 'rollout_error' : evaluationError ? 'evaluator_error' : null;
      const termination = infrastructure ?? (state.terminal_action ? `agent_${state.terminal_action.toLowerCase()}` : state.horizon_reached ? 'max_steps' : 'rollout_state_incomplete');
      const maskSample = infrastructure !== null || termination === 'rollout_state_incomplete';
      const reward = evaluationError ? 0 : osworldReward(score, settings.reward_mode);
      return {
        reward,
        mask_sample: maskSample,
        osworld_score: score,
        osworld_finished: state.terminal_action !== null,
        osworld_horizon_reached: state.horizon_reached,
        osworld_evaluation_completed: evaluationError === null,
        osworld_termination_reason: termination,
        osworld_error: state.error ?? evaluationError,
        osworld_steps: state.steps,
        osworld_setup_refused: [...state.setup_refused, ...postconfigRefused.map((line) => `postconfig ${line}`)],
        ...(reward >= 1 ? {} : { failure_reason: failureReason(osworld, state, evaluationError, termination) }),
      };
    },
  });
}

function failureReason(task: OSWorldTask, state: OSWorldState, evaluationError: string | null, termination: string): string {
  if (evaluationError) return 'evaluator_error';
  if (state.error) return 'action_failed';
  if (termination === 'rollout_state_incomplete') return 'episode_cut_short';
  if (task.evaluator.func === 'infeasible') return 'infeasible_not_declared';
  if (state.terminal_action === 'FAIL') return 'declared_infeasible';
  if (state.horizon_reached) return 'max_steps_without_success';
  return 'task_not_done';
}

export const osworld = createOSWorld();
