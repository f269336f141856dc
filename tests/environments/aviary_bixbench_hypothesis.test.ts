// aviary_bixbench_hypothesis against hypotest (NeMo Gym's aviary_bbh): its prompts, list_dir, run_cell's reply,
// the notebook view and the rubric judge's prompt, retries and score agree with hypotest's own code on generated
// cases (aviary_bixbench_hypothesis.cases.py); NeMo Gym's rows are read unchanged; and the tools run cells in a
// live, jailed Jupyter kernel over the shipped stand-in capsules, rebuilt from the episode when it is gone.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAviaryBixbenchHypothesis, HYPOTHESIS_TOOLS, type HypothesisEpisode, type HypothesisTask } from '../../src/environments/aviary_bixbench_hypothesis';
import { listDirReply, maxFilesOf, notebookView, runCellReply, systemPrompt, taskMessage } from '../../src/environments/aviary_bixbench_hypothesis/episode';
import { readTree, type Tree } from '../../src/environments/notebook/tree';
import { NotebookCell, type NotebookOutput } from '../../src/environments/notebook/view';
import { runTool } from '../../src/environments/tools';
import { JudgeError, type AnyEnvironment } from '../../src/environments/types';
import { truthy } from '../../src/python/values';
import type { ResponseObject } from '../../src/schemas/responses';
import { failingJudge, readJsonl, textJudge } from './nemo_fixtures';

const DATA = path.resolve(import.meta.dirname, '../../src/environments/aviary_bixbench_hypothesis/data');
const STANDIN = { problem_jsonl: path.join(DATA, 'standin/problems.jsonl'), capsule_dir: path.join(DATA, 'standin/capsules') };
const rows = readJsonl(path.join(DATA, 'example.jsonl'));
const EMPTY: ResponseObject = { id: 'r', object: 'response', output: [] };

type Case =
  | { kind: 'system'; job_timeout: number; system: string }
  | { kind: 'task'; hypothesis: string; protocol: string; message: string }
  | { kind: 'list_dir'; tree: Tree; max_files: number | string | boolean; show_hidden: unknown; reply: string }
  | { kind: 'run_cell'; outputs: NotebookOutput[]; text: string }
  | { kind: 'view'; cells: unknown[]; markdown: string }
  | {
      kind: 'score';
      problem: { hypothesis: string; answer: boolean; rubric: string; max_points: number };
      cells: unknown[];
      answer: string;
      replies: string[];
      normalize: boolean;
      prompts: string[];
      message: string;
      raw_score: number;
      total_reward: number;
    };
const cases = readJsonl<Case>(path.join(import.meta.dirname, 'aviary_bixbench_hypothesis.cases.jsonl'));
const ofKind = <K extends Case['kind']>(kind: K) => cases.filter((c): c is Extract<Case, { kind: K }> => c.kind === kind);

function makeTree(root: string, tree: Tree): void {
  for (const file of tree.files) writeFileSync(path.join(root, file), 'x');
  for (const [name, sub] of Object.entries(tree.dirs)) {
    mkdirSync(path.join(root, name));
    makeTree(path.join(root, name), sub);
  }
}

describe('aviary_bixbench_hypothesis against hypotest (dec8cc0)', () => {
  it("interpolates hypotest's system prompt and task message", () => {
    for (const c of ofKind('system')) expect(systemPrompt(c.job_timeout)).toBe(c.system);
    for (const c of ofKind('task')) expect(taskMessage(c.hypothesis, c.protocol)).toBe(c.message);
    expect(ofKind('system')).toHaveLength(3);
  });

  it(`lists folders as list_dir does, its arguments read as Python reads them (${ofKind('list_dir').length} folders)`, () => {
    for (const c of ofKind('list_dir')) {
      const dir = mkdtempSync(path.join(tmpdir(), 'gymflow-bbh-list-'));
      makeTree(dir, c.tree);
      expect({ args: [c.max_files, c.show_hidden], reply: listDirReply(readTree(dir), maxFilesOf(c.max_files), truthy(c.show_hidden)) }).toEqual({
        args: [c.max_files, c.show_hidden],
        reply: c.reply,
      });
    }
    expect(ofKind('list_dir').some((c) => c.reply.includes('more files not shown'))).toBe(true);
  });

  it(`answers run_cell with the outputs' text as hypotest does (${ofKind('run_cell').length} cases)`, () => {
    for (const c of ofKind('run_cell')) expect(runCellReply(3, c.outputs)).toBe(`[Cell #3] ${c.text}`);
    expect(ofKind('run_cell').map((c) => c.text)).toContain('Code executed successfully (no output)');
  });

  it(`renders the notebook the judge reads as hypotest does (${ofKind('view').length} notebooks)`, () => {
    for (const c of ofKind('view')) expect(notebookView(c.cells.map((cell) => NotebookCell.parse(cell)))).toBe(c.markdown);
  });

  it(`scores the submission as hypotest does: its prompt, its retries, its reward (${ofKind('score').length} cases)`, async () => {
    const env = createAviaryBixbenchHypothesis({ ...STANDIN });
    const base = env.taskSchema.parse(rows[0]) as HypothesisTask;
    for (const c of ofKind('score')) {
      const env2 = c.normalize ? env : createAviaryBixbenchHypothesis({ ...STANDIN, normalize_reward: false });
      const task = { ...base, hypothesis: { ...base.hypothesis, problem: { ...base.hypothesis.problem, ...c.problem } } };
      const state = { ...((await env2.seedSession(task)) as HypothesisEpisode), answer: c.answer, done: true, notebook: notebookView(c.cells.map((cell) => NotebookCell.parse(cell))) };
      const { judge, sent } = textJudge(...c.replies, ...Array(3).fill(c.replies.at(-1)));
      const result = await env2.verify(task, EMPTY, { state, judge });
      const failed = c.message === 'RetryError';
      expect({ replies: c.replies, prompts: sent.map((p) => (p.input as { content: string }[])[0]!.content), reward: result.reward, raw: result.raw_score }).toEqual({
        replies: c.replies,
        prompts: c.prompts,
        reward: failed ? 0 : c.total_reward,
        raw: failed ? null : c.raw_score,
      });
      expect(result.failure_reason).toBe(failed ? 'judge_score_unreadable' : c.message === 'Correct answer!' ? undefined : 'rubric_points_missed');
    }
    const messages = new Set(ofKind('score').map((c) => c.message));
    expect(messages).toEqual(new Set(['Correct answer!', 'Incorrect answer.', 'RetryError']));
  });
});

const standin = createAviaryBixbenchHypothesis({ ...STANDIN });
const taskOf = (env: AnyEnvironment, row: unknown) => env.taskSchema.parse(row) as HypothesisTask;

describe("aviary_bixbench_hypothesis reads NeMo Gym's rows unchanged", () => {
  it('opens with the system prompt, the task and the listing InterpreterEnv.reset sends, and offers its four tools', () => {
    expect(rows.map((r) => (r.agent_ref as { name: string }).name)).toEqual(rows.map(() => 'bbh_aviary_agent'));
    const task = taskOf(standin, rows[2]);
    const [system, message, listing] = task.responses_create_params.input as { role: string; content: string }[];
    expect(system).toMatchObject({ role: 'system', content: systemPrompt(1800) });
    expect(system!.content).toContain('you are limited to 1800 seconds of runtime');
    expect(message!.content).toContain('<hypothesis>\nTrained respondents (group B) score higher than controls (group A).\n</hypothesis>');
    expect(listing).toEqual({ type: 'message', role: 'user', content: 'Files in directory:\n  README.txt\n  survey.csv' });
    expect(task.responses_create_params.tools).toEqual(HYPOTHESIS_TOOLS);
    expect(HYPOTHESIS_TOOLS.map((t) => [t.name, t.strict, (t.parameters as { required: string[] }).required])).toEqual([
      ['run_cell', true, ['code']],
      ['reset_kernel', true, []],
      ['submit_answer', true, ['answer']],
      ['list_dir', true, []],
    ]);
    for (const row of rows) expect(standin.taskSchema.safeParse(row).success).toBe(true);
  });

  it('refuses a row without its problem list, problem or capsule, naming the row and why', () => {
    const refusal = (env: AnyEnvironment, row: unknown = rows[0]) => {
      const parsed = env.taskSchema.safeParse(row);
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues[0]!.path).toEqual(['task_idx']);
      return parsed.error!.issues[0]!.message;
    };
    expect(refusal(createAviaryBixbenchHypothesis())).toMatch(/^aviary_bixbench_hypothesis task_idx 0: no problem list: .*problem_jsonl=<file> and capsule_dir=<folder>/);
    expect(refusal(standin, { task_idx: 6, responses_create_params: { input: [] } })).toMatch(/task_idx 6: .* has 6 problems, none at index 6/);
    const dir = mkdtempSync(path.join(tmpdir(), 'gymflow-bbh-problems-'));
    const file = path.join(dir, 'p.jsonl');
    const row = { id: 'A41D7F0293C84B6EB1F45E27C8D9A603', hypothesis: 'h', protocol: 'p', answer: true, rubric: 'r', max_points: 1, input_data_path: 'nowhere' };
    const write = (...problems: object[]) => writeFileSync(file, problems.map((p) => JSON.stringify(p)).join('\n'));
    const env = createAviaryBixbenchHypothesis({ problem_jsonl: file, capsule_dir: dir });
    write(row);
    expect(refusal(env)).toMatch(/its data capsule \(nowhere\) is not in /);
    // hypotest's fallback folder is named by the canonical UUID.
    mkdirSync(path.join(dir, 'CapsuleData-a41d7f02-93c8-4b6e-b1f4-5e27c8d9a603'));
    expect(taskOf(env, rows[0]).hypothesis.capsule).toBe(path.join(dir, 'CapsuleData-a41d7f02-93c8-4b6e-b1f4-5e27c8d9a603'));
    write({ ...row, id: 'not-a-uuid' });
    expect(refusal(env)).toMatch(/p\.jsonl line 1: id: must be a UUID/);
    write(row, { ...row, max_points: 0 });
    expect(refusal(env)).toMatch(/line 2: max_points: /);
    write({ ...row, input_data_path: '../..' });
    expect(refusal(env)).toMatch(/input_data_path "\.\.\/\.\." leads outside capsule_dir/);
    write({ ...row, nb_primary_language: 'R' });
    expect(refusal(createAviaryBixbenchHypothesis({ problem_jsonl: file, capsule_dir: dir, force_python: false }))).toMatch(/asks for an R notebook/);
    expect(() => createAviaryBixbenchHypothesis({ warn_submit_threshold: 5, force_submit_threshold: 10 })).toThrow(/warn_submit_threshold must be greater than force_submit_threshold/);
  });
});

async function play(env: AnyEnvironment, task: HypothesisTask, calls: [string, unknown][], from?: HypothesisEpisode) {
  let state = from ?? ((await env.seedSession(task)) as HypothesisEpisode);
  const replies: { status: number; text: string }[] = [];
  for (const [name, args] of calls) {
    const result = await runTool(env, task, state, name, JSON.stringify(args));
    state = result.state as HypothesisEpisode;
    replies.push({ status: result.status, text: result.status === 200 ? (JSON.parse(result.output) as string) : result.output });
  }
  return { state, replies };
}

describe('aviary_bixbench_hypothesis tools in a live, jailed Jupyter kernel', () => {
  it('keeps the kernel between cells, edits cells by index, and resets it', { timeout: 120_000 }, async () => {
    const task = taskOf(standin, rows[2]);
    const { state, replies } = await play(standin, task, [
      ['run_cell', { code: "import pandas as pd\ndf = pd.read_csv('survey.csv')\nx = 41\nprint(df.shape)" }],
      ['run_cell', { code: 'x + 1' }],
      ['run_cell', { code: 'x / 0', idx: '1' }],
      ['run_cell', { code: 'x', idx: -5 }],
      ['reset_kernel', {}],
      ['run_cell', { code: 'x' }],
      ['run_cell', { idx: 0 }],
    ]);
    expect(replies[0]!.text).toBe('[Cell #0] [stdout]\n(8, 4)\n');
    expect(replies[1]!.text).toBe('[Cell #1] 42');
    expect(replies[2]!.text).toMatch(/^\[Cell #1\] Error: ZeroDivisionError\nMessage: division by zero\nTraceback:\n/);
    expect(replies[3]!.text).toBe("Encountered exception during tool call: IndexError('list index out of range')");
    expect(replies[4]!.text).toBe('Kernel reset successfully.');
    expect(replies[5]!.text).toMatch(/^\[Cell #0\] Error: NameError\nMessage: name 'x' is not defined/);
    expect(replies[6]).toMatchObject({ status: 422 });
    expect(state).toMatchObject({ history: ['x'], executions: 1, steps: 6 });
    expect(state.cells.map((c) => [c.source, c.execution_count])).toEqual([['x', 1]]);
  });

  it('lists only the workspace: hidden files on request, no way out by .. or a symlink', { timeout: 120_000 }, async () => {
    const task = taskOf(standin, rows[0]);
    const { replies } = await play(standin, task, [
      ['run_cell', { code: "import os\nos.makedirs('out/plots')\nopen('out/plots/a.txt', 'w').write('x')\nopen('.secret', 'w').write('x')\nos.symlink('/', 'root')" }],
      ['list_dir', {}],
      ['list_dir', { show_hidden: true, max_files: '2' }],
      ['list_dir', { directory: 'out' }],
      ['list_dir', { directory: 'root' }],
      ['list_dir', { directory: '../..' }],
      ['list_dir', { directory: '/etc' }],
    ]);
    expect(replies.slice(1).map((r) => r.text)).toEqual([
      'Files in directory:\n  out/plots/a.txt\n  growth.csv\n  root',
      'Files in directory:\n  out/plots/a.txt\n  .secret\n  (2 more files not shown)',
      'Files in directory:\n  plots/a.txt',
      'Path is not a directory: /data_workspace/root',
      'Path is not a directory: /data_workspace/../..',
      'Path is not a directory: /etc',
    ]);
  });

  it('stops a cell at cell_execution_timeout, counts kernel time against job_timeout, warns, then refuses cells', { timeout: 120_000 }, async () => {
    const env = createAviaryBixbenchHypothesis({ ...STANDIN, cell_execution_timeout: 2, job_timeout: 20, warn_submit_threshold: 14, force_submit_threshold: 8 });
    const task = taskOf(env, rows[0]);
    let state = (await env.seedSession(task)) as HypothesisEpisode;
    const notes: string[] = [];
    // Each cell runs into its timeout (or the time left), so the budget runs down whatever this machine's speed.
    for (let i = 0; i < 12 && !notes.includes('refused'); i++) {
      const result = await runTool(env, task, state, 'run_cell', JSON.stringify({ code: 'import time\ntime.sleep(30)' }));
      const text = JSON.parse(result.output) as string;
      if (i === 0) expect(text).toMatch(/^\[Cell #0\] Error: TimeoutError\nMessage: Code execution timed out after 2\.0 seconds/);
      const ran = (result.state as HypothesisEpisode).history.length > state.history.length;
      notes.push(!ran ? 'refused' : text.includes('TIME EXPIRED') ? 'expired' : /\n\nWarning: \d+ seconds remaining\. Plan to submit/.test(text) ? 'warned' : 'none');
      if (!ran) expect(text).toMatch(/^TIME EXPIRED - IMMEDIATE ACTION REQUIRED:\n/);
      state = result.state as HypothesisEpisode;
    }
    const order = ['none', 'warned', 'expired', 'refused'];
    expect(notes.map((n) => order.indexOf(n))).toEqual([...notes.map((n) => order.indexOf(n))].sort());
    expect(new Set(notes)).toEqual(new Set(order));
    expect(state.kernel_seconds).toBeGreaterThan(20 - 8 - 1);
  });

  it('orders a submission on every reply from step max_steps - 1 on', { timeout: 120_000 }, async () => {
    const env = createAviaryBixbenchHypothesis({ ...STANDIN, max_steps: 3 });
    const { replies } = await play(env, taskOf(env, rows[0]), [
      ['list_dir', {}],
      ['list_dir', {}],
      ['list_dir', {}],
    ]);
    expect(replies.map((r) => r.text.includes('TIME EXPIRED'))).toEqual([false, true, true]);
  });

  it('goes on in another process, and after a kernel death: the code so far is replayed into a new kernel', { timeout: 120_000 }, async () => {
    const task = taskOf(standin, rows[1]);
    const first = await play(standin, task, [['run_cell', { code: "import pandas as pd\ndf = pd.read_csv('growth.csv')\nopen('note.txt', 'w').write('kept')" }]]);
    const other = createAviaryBixbenchHypothesis({ ...STANDIN });
    const { state, replies } = await play(
      other,
      task,
      [
        ['run_cell', { code: 'print(len(df), open("note.txt").read())' }],
        ['run_cell', { code: 'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)' }],
        ['run_cell', { code: 'print(len(df))' }],
      ],
      first.state,
    );
    expect(replies[0]!.text).toBe('[Cell #1] [stdout]\n12 kept\n');
    expect(replies[1]!.text).toMatch(/^\[Cell #2\] Error: DeadKernelError\nMessage: Kernel died\n/);
    expect(replies[2]!.text).toBe('[Cell #3] [stdout]\n12\n');
    expect(state.history).toHaveLength(3);
  });

  it('grades the submitted answer with the rubric judge over the notebook at submission', { timeout: 120_000 }, async () => {
    const task = taskOf(standin, rows[0]);
    const { state, replies } = await play(standin, task, [
      ['run_cell', { code: "print('WT 0.41, dGAL4 0.06')" }],
      ['submit_answer', { answer: 'Supported.' }],
      ['submit_answer', { answer: 'Again.' }],
      ['run_cell', { code: '1' }],
    ]);
    expect(replies.slice(1).map((r) => r.text)).toEqual(['Answer submitted; it is graded when the episode ends.', 'Episode already finished.', 'Episode already finished.']);
    expect(state.notebook).toBe("### Cell 0:\n```python\nprint('WT 0.41, dGAL4 0.06')\n```\n### Output 0:\n```\nWT 0.41, dGAL4 0.06\n\n```");
    const judge = textJudge('The mean values are right. <score>2</score>');
    expect(await standin.verify(task, EMPTY, { state, judge: judge.judge })).toMatchObject({ reward: 1, raw_score: 2, max_score: 2, accepted: true });
    expect((judge.sent[0]!.input as { content: string }[])[0]!.content).toContain(`<notebook>\n${state.notebook}\n</notebook>`);
    expect(await standin.verify(task, EMPTY, { state, judge: textJudge('<score>1</score>').judge })).toMatchObject({ reward: 0.5, failure_reason: 'rubric_points_missed' });
    await expect(standin.verify(task, EMPTY, { state, judge: failingJudge })).rejects.toBeInstanceOf(JudgeError);
    const unsubmitted = (await standin.seedSession(task)) as HypothesisEpisode;
    expect(await standin.verify(task, EMPTY, { state: unsubmitted })).toMatchObject({ reward: 0, failure_reason: 'no_answer_submitted' });
  });
});
