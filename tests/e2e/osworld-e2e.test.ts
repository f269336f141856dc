// osworld end to end in a durable eval on a real Temporal server: the mock policy (its osworld oracle) plays
// NeMo Gym's Chrome example task and an infeasible one against a FAKE OSWorld desktop server (no VM can run
// here), turn by turn through the desktop's HTTP API; OSWorld's evaluator path gives the rewards. A task whose
// evaluator Gymflow has not ported goes to the sidecar as a bad task, named.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonl, writeJsonl } from '../environments/nemo_fixtures';
import { startFakeOSWorldDesktop, type FakeDesktop } from '../helpers/fake-osworld-desktop';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';

type Row = Record<string, any>;
let server: TestServer;
let fake: FakeDesktop;
beforeAll(async () => {
  [server, fake] = await Promise.all([startTestServer(), startFakeOSWorldDesktop()]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), fake?.stop()]);
});

const examples = readJsonl<Row>(path.join(import.meta.dirname, '../../src/environments/osworld/data/example.jsonl'));
const infeasible = {
  responses_create_params: { input: [{ role: 'user', content: 'Install Photoshop.' }] },
  verifier_metadata: { task_id: 'gymflow-infeasible', domain: 'os', osworld_task: { id: 'gymflow-infeasible', instruction: 'Install Photoshop.', config: [], evaluator: { func: 'infeasible' } } },
};

describe('osworld in a durable eval against a FAKE desktop', () => {
  it('the oracle earns 1 on both tasks when right, 0 when wrong; an unported evaluator is a named bad task', async () => {
    const dir = await tempDir('gymflow-osworld-');
    const inputFile = path.join(dir, 'tasks.jsonl');
    writeJsonl(inputFile, [examples[0], infeasible, examples[2]]);
    // One desktop, so one rollout at a time, as one OSWorld VM serves one episode.
    const env = { name: 'osworld', options: { desktop_url: fake.url, require_a11y_tree: true, sleep_after_execution: 0 } };
    const play = async (accuracy: number) => {
      fake.reset();
      const runDir = path.join(dir, `run-${accuracy}`);
      const result = await runInProcess(server, runConfig({ runDir, env, inputFile, concurrency: 1, maxSteps: 15, maximumAttempts: 1, model: { accuracy } }));
      return { result, runDir, records: readJsonl<Row>(path.join(runDir, 'rollouts.jsonl')), failures: readJsonl<Row>(path.join(runDir, 'failures.jsonl')), received: [...fake.received] };
    };

    const right = await play(1);
    expect(right.result.metrics).toMatchObject({ rollouts_recorded: 2, rollouts_failed: 1 });
    const byTask = (records: Row[], id: string) => records.find((r) => r.verifier_metadata.task_id === id)!;
    const chrome = byTask(right.records, examples[0]!.verifier_metadata.task_id);
    expect(chrome).toMatchObject({ reward: 1, osworld_score: 1, mask_sample: false, osworld_termination_reason: 'agent_done' });
    expect(chrome.osworld_steps.map((s: Row) => s.actions)).toEqual([['import pyautogui\npyautogui.click(1240, 723)'], ['DONE']]);
    // The model was shown screenshots as images; the episode's user turns carry them.
    const images = (chrome.response.output as Row[]).filter((i) => i.role === 'user').flatMap((i) => (i.content as Row[]).filter((p) => p.type === 'input_image'));
    expect(images.length).toBeGreaterThanOrEqual(1);
    expect(images[0]!.image_url).toMatch(/^data:image\/png;base64,/);
    expect(byTask(right.records, 'gymflow-infeasible')).toMatchObject({ reward: 1, osworld_termination_reason: 'agent_fail' });
    expect(right.failures).toHaveLength(1);
    expect(right.failures[0]).toMatchObject({
      _ng_task_index: 2,
      _ng_failure_class: 'bad_task',
      stage: 'seed',
      message: 'osworld task 357ef137-7eeb-4c80-a3bb-0951f26a8aff: Gymflow cannot play it, its metric "compare_table", getter "vm_file" are not ported',
    });
    expect(right.received.some((r) => r.path === '/execute' && JSON.stringify(r.body).includes('pyautogui.click(1240, 723)'))).toBe(true);

    const wrong = await play(0);
    expect(wrong.result.metrics).toMatchObject({ rollouts_recorded: 2, rollouts_failed: 1, mean_reward: 0 });
    expect(byTask(wrong.records, examples[0]!.verifier_metadata.task_id)).toMatchObject({ reward: 0, failure_reason: 'task_not_done', mask_sample: false });
    expect(byTask(wrong.records, 'gymflow-infeasible')).toMatchObject({ reward: 0, failure_reason: 'infeasible_not_declared' });
  }, 180_000);
});
