// osworld against NeMo Gym and OSWorld: the action parser and OSWorld's '<' rewrite give what their own Python
// gives (osworld.cases.jsonl, made by osworld.cases.py in NeMo Gym's venv); NeMo Gym's recorded rollouts are
// checked as far as they can be offline; and whole episodes are played against a FAKE OSWorld desktop server
// (tests/helpers/fake-osworld-desktop.ts; no VM runs here), through the same HTTP API a real VM's server speaks.
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseActions, stripThinking } from '../../src/environments/osworld/actions';
import { unsupportedParts, OSWorldTask } from '../../src/environments/osworld/evaluate';
import { createOSWorld, osworld, osworldReward, systemPrompt, type OSWorldState } from '../../src/environments/osworld';
import { fixLessThan } from '../../src/environments/osworld/less-than';
import { osworldOracle } from '../../src/environments/osworld/oracle';
import { reverifyEpisode } from '../../src/reverify/verify';
import { assistantMessage } from '../../src/environments/example_single_tool_call';
import type { ConversationItem, ResponseObject } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { FIXTURES, readJsonl } from './nemo_fixtures';
import { BING_BUTTON, PREFERENCES, startFakeOSWorldDesktop, type FakeDesktop } from '../helpers/fake-osworld-desktop';

type Row = Record<string, any>;
const cases = readJsonl<Row>(path.join(import.meta.dirname, 'osworld.cases.jsonl'));
const dir = path.join(FIXTURES, 'osworld');
const tasks = readJsonl<Row>(path.join(dir, 'example.jsonl'));
const rollouts = readJsonl<Row>(path.join(dir, 'example_rollouts.jsonl'));

describe('osworld action parsing against NeMo Gym (its action_parser.py run on the same replies)', () => {
  const parses = cases.filter((c) => c.kind === 'parse');
  it('has the cases', () => expect(parses.length).toBeGreaterThan(60));
  it.each(parses.map((c, i) => [i, c] as const))('reply %i', (_i, c) => {
    expect(stripThinking(c.text)).toBe(c.stripped);
    expect(parseActions(c.text)).toEqual(c.actions);
  });
});

describe("OSWorld's '<' rewrite against desktop_env's own (_fix_pyautogui_less_than_bug, desktop-env 1.0.2)", () => {
  it.each(cases.filter((c) => c.kind === 'less_than').map((c) => [c.command, c] as const))('%s', (_cmd, c) => {
    expect(fixLessThan(c.command)).toBe(c.fixed);
  });
});

describe("NeMo Gym's recorded OSWorld rollouts, offline", () => {
  it('every step parses to the actions NeMo Gym executed, and each reward is the binary of the recorded score', () => {
    expect(rollouts).toHaveLength(5);
    for (const r of rollouts) {
      for (const step of r.verifier_metadata.osworld_steps) expect(parseActions(step.model_text)).toEqual(step.actions);
      expect(osworldReward(r.verifier_metadata.osworld_score, 'binary')).toBe(r.reward);
      // The episode ended on the step whose actions held DONE or FAIL, as DesktopEnv.step answers done for them.
      const steps = r.verifier_metadata.osworld_steps as Row[];
      expect(steps.map((s) => s.done)).toEqual(steps.map((s) => (s.actions as string[]).some((a) => a === 'DONE' || a === 'FAIL')));
    }
  });

  it('cannot be graded again: the score is the VM evaluator reading the desktop (NeMo Gym answers a stored one masked too)', async () => {
    const nemo = cases.find((c) => c.kind === 'verify_without_desktop')!;
    expect(nemo).toMatchObject({ recorded_reward: 1, reward: 0, mask_sample: true });
    for (const r of rollouts) {
      const task = osworld.taskSchema.parse(tasks[r._ng_task_index]);
      const outcome = await reverifyEpisode(osworld, task, r.response as ResponseObject);
      expect(outcome).toMatchObject({ status: 'verify_error' });
      expect((outcome as { message: string }).message).toContain('cannot be graded again');
    }
  });

  it('names what of each example task Gymflow has not ported (only the Chrome task is playable)', () => {
    const parts = tasks.map((t) => unsupportedParts(OSWorldTask.parse(t.verifier_metadata.osworld_task)));
    expect(parts).toEqual([
      [],
      ['metric "check_brightness_decrease_and_structure_sim"', 'getter "vm_file"', 'getter "cloud_file"'],
      ['metric "compare_table"', 'getter "vm_file"'],
      ['metric "check_image_stretch_and_center"', 'getter "vm_file"', 'getter "cloud_file"'],
      ['metric "compare_line_spacing"', 'metric "compare_line_spacing"', 'getter "vm_file"', 'getter "vm_file"', 'getter "cloud_file"', 'getter "cloud_file"'],
    ]);
  });
});

const chromeRow = tasks[0]!;
const infeasibleRow = {
  responses_create_params: { input: [{ role: 'user', content: 'Install Photoshop.' }] },
  verifier_metadata: { task_id: 'gymflow-infeasible', domain: 'os', osworld_task: { id: 'gymflow-infeasible', instruction: 'Install Photoshop.', config: [], evaluator: { func: 'infeasible' } } },
};

describe('osworld episodes against a FAKE OSWorld desktop server', () => {
  let fake: FakeDesktop;
  beforeAll(async () => {
    fake = await startFakeOSWorldDesktop();
  });
  afterAll(async () => fake?.stop());
  beforeEach(() => {
    fake.reset();
    fake.failing.clear();
  });
  const env = () => createOSWorld({ desktop_url: fake.url, sleep_after_execution: 0, max_steps: 3, require_a11y_tree: true });

  async function play(row: Row, replies: string[], e = env()) {
    const task = e.taskSchema.parse(row);
    const start = await e.reset!(task, {});
    let state = start.state as OSWorldState;
    const items: ConversationItem[] = [...start.items];
    for (const reply of replies) {
      const turn = [assistantMessage(reply)];
      const next = await e.step!(task, state, turn, {});
      state = next.state as OSWorldState;
      items.push(...turn, ...next.items);
      if (next.done) break;
    }
    const result = (await e.verify(task, { id: 'r', output: items }, { state })) as Row;
    return { task, start, state, items, result };
  }

  it("prompts as the osworld agent: its system prompt, then the task and the desktop's screenshot and tree", async () => {
    const { task, start } = await play(chromeRow, ['```DONE```']);
    expect(task.responses_create_params.instructions).toBe(systemPrompt('password'));
    expect(task.responses_create_params.input).toEqual(chromeRow.responses_create_params.input);
    expect(systemPrompt('pw')).toContain("My computer's password is 'pw'");
    const [observation] = start.items as Row[];
    expect(observation!.role).toBe('user');
    expect(observation!.content[0].text).toBe(
      `Task: ${chromeRow.verifier_metadata.osworld_task.instruction}\nGiven the screenshot below, what's the next step you will take to help complete the task?`,
    );
    expect(observation!.content[1]).toMatchObject({ type: 'input_image', detail: 'high' });
    expect(Buffer.from(observation!.content[1].image_url.split(',')[1], 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(observation!.content[2].text).toContain('Accessibility tree:\n<desktop-frame');
  });

  it('solves the Chrome task (NeMo Gym example row 0): the click reaches the desktop, the evaluator reads Bing, reward 1', async () => {
    const click = `pyautogui.click(${BING_BUTTON.x + 10}, ${BING_BUTTON.y + 10})`;
    const { result, state } = await play(chromeRow, [`Let me set it.\n\`\`\`python\nimport pyautogui\n${click}\n\`\`\``, '```DONE```']);
    expect(fake.searchEngine()).toBe('Bing');
    expect(result).toMatchObject({ reward: 1, osworld_score: 1, mask_sample: false, osworld_termination_reason: 'agent_done', osworld_finished: true });
    expect(result.failure_reason).toBeUndefined();
    expect(state.steps.map((s) => s.actions)).toEqual([[`import pyautogui\n${click}`], ['DONE']]);
    const paths = fake.received.map((r) => `${r.method} ${r.path}`);
    // Setup launches Chrome and socat; the step's code goes to /execute with DesktopEnv's prefix; postconfig relaunches;
    // the getter asks the platform and the Preferences path, then reads the file.
    expect(paths.filter((p) => p === 'POST /setup/launch')).toHaveLength(4);
    const executed = fake.received.filter((r) => r.path === '/execute').map((r) => (r.body as { command: string[] }).command);
    expect(executed[0]).toEqual(['python', '-c', `import pyautogui; import time; pyautogui.FAILSAFE = False; import pyautogui\n${click}`]);
    expect(executed.slice(1).map((c) => c[2])).toEqual([
      'import pyautogui; import time; pyautogui.FAILSAFE = False; import platform; print(platform.system())',
      "import pyautogui; import time; pyautogui.FAILSAFE = False; import os; print(os.path.join(os.getenv('HOME'), '.config/google-chrome/Default/Preferences'))",
    ]);
    expect(fake.received.at(-1)).toMatchObject({ path: '/file', body: { file_path: PREFERENCES } });
  }, 30_000);

  it('fails the Chrome task when the model says DONE without acting: reward 0, task_not_done, not masked', async () => {
    const { result } = await play(chromeRow, ['It is already done.\n```DONE```']);
    expect(result).toMatchObject({ reward: 0, osworld_score: 0, mask_sample: false, failure_reason: 'task_not_done', osworld_termination_reason: 'agent_done' });
  }, 30_000);

  it('FAIL on a feasible task scores 0 without the getter reading the desktop; on an infeasible one it scores 1', async () => {
    const feasible = await play(chromeRow, ['```FAIL```']);
    expect(feasible.result).toMatchObject({ reward: 0, failure_reason: 'declared_infeasible', osworld_termination_reason: 'agent_fail' });
    expect(fake.received.some((r) => r.path === '/file')).toBe(false);
    expect((await play(infeasibleRow, ['```FAIL```'])).result).toMatchObject({ reward: 1, mask_sample: false });
    expect((await play(infeasibleRow, ['```DONE```'])).result).toMatchObject({ reward: 0, failure_reason: 'infeasible_not_declared' });
  }, 30_000);

  it('runs several actions of one reply in order, WAIT between them, and stops at DONE (nothing after it runs)', async () => {
    const reply = "```python\npyautogui.press('a')\n```\n```WAIT```\n```python\npyautogui.typewrite('x<y')\nDONE\n```\n```python\npyautogui.press('z')\n```";
    const { state } = await play(infeasibleRow, [reply]);
    const sent = fake.received.filter((r) => r.path === '/execute').map((r) => (r.body as { command: string[] }).command[2]!.split('pyautogui.FAILSAFE = False; ')[1]);
    expect(sent).toEqual(["pyautogui.press('a')", `pyautogui.typewrite('x'); pyautogui.hotkey("shift", ","); pyautogui.typewrite('y')`]);
    expect(state).toMatchObject({ terminal_action: 'DONE', last_action: 'DONE' });
  });

  it('a reply with nothing to run is a step that runs nothing; max_steps ends the episode, scored and not masked', async () => {
    const { result, state } = await play(chromeRow, ['I am thinking.', '```python\n\n```', '<think>```DONE```</think>']);
    expect(state.steps.map((s) => s.actions)).toEqual([[], [], []]);
    expect(fake.received.filter((r) => r.path === '/execute')).toHaveLength(2); // only the getter's two
    expect(result).toMatchObject({ reward: 0, osworld_horizon_reached: true, osworld_termination_reason: 'max_steps', mask_sample: false, failure_reason: 'max_steps_without_success' });
  }, 30_000);

  it('an action the desktop refuses ends the episode; it is still evaluated, and masked (rollout_error)', async () => {
    const e = env();
    const task = e.taskSchema.parse(chromeRow);
    const { state } = await e.reset!(task, {});
    fake.failing.add('/execute');
    const step = await e.step!(task, state, [assistantMessage('```python\npyautogui.click(1, 1)\n```')], {});
    expect(step.done).toBe(true);
    expect((step.state as OSWorldState).error).toMatch(/env.step\(\) failed at step 0: .*HTTP 500/);
    fake.failing.clear();
    const result = (await e.verify(task, { id: 'r', output: [] }, { state: step.state })) as Row;
    expect(result).toMatchObject({ reward: 0, mask_sample: true, osworld_termination_reason: 'rollout_error', failure_reason: 'action_failed', osworld_evaluation_completed: true });
  }, 30_000);

  it('an evaluator that cannot read the desktop scores 0, masked (evaluator_error); refused postconfig launches are reported', async () => {
    const e = env();
    const task = e.taskSchema.parse(chromeRow);
    const { state } = await e.reset!(task, {});
    const done = await e.step!(task, state, [assistantMessage('```DONE```')], {});
    fake.failing.add('/execute');
    fake.failing.add('/setup/launch');
    const result = (await e.verify(task, { id: 'r', output: [] }, { state: done.state })) as Row;
    expect(result).toMatchObject({ reward: 0, mask_sample: true, failure_reason: 'evaluator_error', osworld_termination_reason: 'evaluator_error', osworld_evaluation_completed: false });
    expect(result.osworld_error).toMatch(/env.evaluate\(\) failed: .*\/execute with HTTP 500/);
    expect(result.osworld_setup_refused).toHaveLength(2);
  }, 30_000);

  it('refuses a task it cannot grade before touching the desktop, naming what is not ported', async () => {
    const e = env();
    await expect(e.reset!(e.taskSchema.parse(tasks[2]), {})).rejects.toThrow(/357ef137.*metric "compare_table", getter "vm_file" are not ported/);
    expect(fake.received).toHaveLength(0);
  });

  it('refuses a desktop that is not there, and a screenshot that is not an image, with the reason', async () => {
    const gone = createOSWorld({ desktop_url: 'http://127.0.0.1:9', sleep_after_execution: 0 });
    await expect(gone.reset!(gone.taskSchema.parse(infeasibleRow), {})).rejects.toMatchObject({ code: 'ENV_ERROR', message: expect.stringContaining('did not answer /screenshot') });
    const broken = await startFakeOSWorldDesktop({ brokenScreenshot: true });
    try {
      const e = createOSWorld({ desktop_url: broken.url });
      await expect(e.reset!(e.taskSchema.parse(infeasibleRow), {})).rejects.toThrow(/not a PNG or JPEG image/);
    } finally {
      await broken.stop();
    }
  });

  it('refuses a row without its OSWorld task, naming the field', () => {
    const bad = osworld.taskSchema.safeParse({ responses_create_params: { input: [] }, verifier_metadata: { task_id: 'x' } });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error!.issues[0]!.path)).toBe('["verifier_metadata","osworld_task"]');
  });

  it("the mock's oracle solves the Chrome task from the accessibility tree, and fails it when told to", async () => {
    const e = env();
    const rng = seededRng('osworld');
    for (const correct of [true, false]) {
      fake.reset();
      const task = e.taskSchema.parse(chromeRow);
      const start = await e.reset!(task, {});
      let state = start.state as OSWorldState;
      const history: ConversationItem[] = [...start.items];
      for (let i = 0; i < 3; i++) {
        const turn = osworldOracle(task, history, { correct, rng });
        const next = await e.step!(task, state, turn, {});
        state = next.state as OSWorldState;
        history.push(...turn, ...next.items);
        if (next.done) break;
      }
      const result = (await e.verify(task, { id: 'r', output: history }, { state })) as Row;
      expect(result.reward).toBe(correct ? 1 : 0);
    }
  }, 60_000);
});
