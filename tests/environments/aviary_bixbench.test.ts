// aviary_bixbench against NeMo Gym 0.7.0 and Aviary: the judge's prompt and verdict, the notebook view, edit_cell
// and the workdir listing agree with Aviary's own code on generated cases (aviary_bixbench.cases.py); NeMo Gym's
// rows and recorded rollouts are read unchanged; and the tools run real notebooks in a jailed Jupyter kernel over
// the shipped stand-in capsules.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { aviaryBixbench, BIXBENCH_TOOLS, createAviaryBixbench, type BixBenchEpisode, type BixBenchTask } from '../../src/environments/aviary_bixbench';
import { applyEdit, listWorkdir, notebookView, stateMessage, taskMessage } from '../../src/environments/aviary_bixbench/episode';
import { isYes, judgePrompt, judgeRequest } from '../../src/environments/aviary_bixbench/grade';
import { readTree, type Tree } from '../../src/environments/notebook/tree';
import { NotebookCell } from '../../src/environments/notebook/view';
import { limitOutput } from '../../src/environments/notebook/view';
import { runTool } from '../../src/environments/tools';
import { JudgeError, type AnyEnvironment } from '../../src/environments/types';
import { reverifyRollouts } from '../../src/reverify';
import { flattenTransitions } from '../../src/reverify/transitions';
import type { ConversationItem, ResponseObject } from '../../src/schemas/responses';
import { failingJudge, FIXTURES, readJsonl, textJudge } from './nemo_fixtures';

const DATA = path.resolve(import.meta.dirname, '../../src/environments/aviary_bixbench/data');
const STANDIN = path.join(DATA, 'standin');
const rows = readJsonl(path.join(DATA, 'example.jsonl'));
const EMPTY: ResponseObject = { id: 'r', object: 'response', output: [] };

type Case =
  | { kind: 'judge'; question: string; ideal: string; proposed: string; reply: string; sent: { prompt: string; temperature: number }[]; score: number }
  | { kind: 'view'; cells: unknown[]; markdown: string }
  | { kind: 'edit'; calls: [string, number | string | boolean | null][]; replies: string[]; sources: string[] }
  | { kind: 'listing'; tree: Tree; listing: string };
const cases = readJsonl<Case>(path.join(import.meta.dirname, 'aviary_bixbench.cases.jsonl'));
const ofKind = <K extends Case['kind']>(kind: K) => cases.filter((c): c is Extract<Case, { kind: K }> => c.kind === kind);

/** Lists and objects compared without order: Aviary lists a folder in the order the file system gives. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical).sort();
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonical(v)]));
  return value;
}

describe('aviary_bixbench against Aviary (fhaviary 0.37.0, aviary.notebook 0.37.0)', () => {
  it(`asks the judge Aviary's prompt and reads its verdict as Aviary does (${ofKind('judge').length} cases)`, () => {
    const judged = ofKind('judge');
    for (const c of judged) {
      expect(c.sent).toHaveLength(1);
      expect(judgePrompt(c.question, c.ideal, c.proposed)).toBe(c.sent[0]!.prompt);
      expect(judgeRequest(c.sent[0]!.prompt).temperature).toBe(c.sent[0]!.temperature);
      expect([c.reply, isYes(c.reply)]).toEqual([c.reply, c.score === 1]);
    }
    expect(new Set(judged.map((c) => c.score))).toEqual(new Set([0, 1]));
  });

  it(`renders the notebook view exactly (${ofKind('view').length} notebooks)`, () => {
    for (const c of ofKind('view')) expect(notebookView(c.cells.map((cell) => NotebookCell.parse(cell)))).toBe(c.markdown);
    expect(ofKind('view').some((c) => c.markdown.includes('output truncated to 3000 characters'))).toBe(true);
    expect(ofKind('view').some((c) => c.markdown.includes('<1>'))).toBe(true);
  });

  it(`edits cells as edit_cell does, by every kind of index (${ofKind('edit').length} sequences)`, () => {
    for (const c of ofKind('edit')) {
      let cells: NotebookCell[] = [];
      const replies = c.calls.map(([contents, idx]) => {
        const edit = applyEdit(cells, contents, idx);
        cells = edit.cells;
        return edit.message;
      });
      expect({ calls: c.calls, replies, sources: cells.map((cell) => cell.source) }).toEqual({ calls: c.calls, replies: c.replies, sources: c.sources });
    }
    expect(ofKind('edit').flatMap((c) => c.replies)).toContain("Encountered exception during tool call: IndexError('list index out of range')");
  });

  it(`lists the workdir as list_workdir does (${ofKind('listing').length} folders)`, () => {
    for (const c of ofKind('listing')) expect(canonical(JSON.parse(listWorkdir(c.tree)))).toEqual(canonical(JSON.parse(c.listing)));
    // Python's json.dumps: two-space indent and non-ASCII names escaped.
    expect(listWorkdir({ files: ['Ünï.tsv'], dirs: { raw: { files: [], dirs: {} } } })).toBe('{\n  "directories": {},\n  "raw": {},\n  "files": [\n    "\\u00dcn\\u00ef.tsv"\n  ]\n}');
  });

  it('cuts long outputs by code point, keeping both ends', () => {
    const long = `${'a'.repeat(1500)}🧬${'b'.repeat(1499)}`;
    expect(limitOutput('x'.repeat(2999))).toBe('x'.repeat(2999));
    expect(limitOutput(long)).toBe(`${'a'.repeat(1500)}\n<...output truncated to 3000 characters (edit the cell to produce a shorter output if needed)...>\n🧬${'b'.repeat(1499)}`);
  });
});

const standin = createAviaryBixbench({ capsule_dir: STANDIN });
const taskOf = (env: AnyEnvironment, row: unknown) => env.taskSchema.parse(row) as BixBenchTask;

describe("aviary_bixbench reads NeMo Gym's rows unchanged", () => {
  it('points each task_idx row at its stand-in problem, with the opening messages and tools NeMo Gym sends', () => {
    expect(rows.map((r) => Object.keys(r).sort())).toEqual(rows.map(() => ['responses_create_params', 'task_idx']));
    const task = taskOf(standin, rows[1]);
    expect(task.bixbench.problem.question).toBe("Which gene's mean count changes more between control and treated samples (treated mean over control mean)?");
    expect(task.responses_create_params.input).toEqual([
      {
        type: 'message',
        role: 'user',
        content: `Using the available tools and data, write a jupyter notebook to solve the following problem: "Which gene's mean count changes more between control and treated samples (treated mean over control mean)?"`,
      },
      { type: 'message', role: 'user', content: 'Markdown representation of notebook contents (/workspace/notebook.ipynb):\n\n' },
    ]);
    expect(task.responses_create_params.tools!.map((t) => (t as { name: string }).name)).toEqual(['edit_cell', 'list_workdir', 'submit_solution']);
    for (const row of rows) expect(standin.taskSchema.safeParse(row).success).toBe(true);
  });

  it('refuses a row whose problem list, problem or capsule is not here, naming the row and why', () => {
    const refusal = (env: AnyEnvironment, row: unknown) => {
      const parsed = env.taskSchema.safeParse(row);
      expect(parsed.success).toBe(false);
      return parsed.error!.issues[0]!;
    };
    const home = mkdtempSync(path.join(tmpdir(), 'gymflow-bixbench-test-'));
    const none = refusal(createAviaryBixbench({ capsule_dir: home }), rows[0]);
    expect(none.path).toEqual(['task_idx']);
    expect(none.message).toMatch(/^aviary_bixbench task_idx 0: the BixBench problem list .*BixBench\.jsonl is not here: .*Hugging Face/);
    expect(refusal(standin, { task_idx: 7, responses_create_params: { input: [] } }).message).toMatch(/task_idx 7: .* has 5 problems, none at index 7/);
    writeFileSync(path.join(home, 'BixBench.jsonl'), '{"capsule_uuid": "abc", "question": "q?", "ideal": "1"}\n');
    expect(refusal(createAviaryBixbench({ capsule_dir: home }), rows[0]).message).toMatch(/task_idx 0: its data capsule CapsuleData-abc is not in .*: .*Hugging Face/);
    writeFileSync(path.join(home, 'other.jsonl'), '{"capsule_uuid": "abc", "question": "q?", "ideal": "1"}\n\n{"capsule_uuid": "abc", "question": "q?"}\n');
    expect(refusal(createAviaryBixbench({ capsule_dir: home, problems: path.join(home, 'other.jsonl') }), rows[1]).message).toMatch(/task_idx 1: .*other\.jsonl line 3: ideal: /);
    writeFileSync(path.join(home, 'BixBench.jsonl'), '{"capsule_uuid": "../etc", "question": "q?", "ideal": "1"}\n');
    expect(refusal(createAviaryBixbench({ capsule_dir: home }), rows[0]).message).toMatch(/line 1: capsule_uuid: must name one folder/);
    expect(refusal(standin, { responses_create_params: { input: [] } }).path).toEqual(['task_idx']);
  });
});

describe("aviary_bixbench and NeMo Gym's recorded rollouts", () => {
  const recorded = readJsonl(path.join(FIXTURES, 'aviary_bixbench', 'example_rollouts.jsonl'));
  const flat = recorded.map(flattenTransitions) as {
    _ng_task_index: number;
    reward: number;
    responses_create_params: { input: { content: string }[] };
    response: ResponseObject & { tools: unknown };
  }[];

  it('offers the tools NeMo Gym offered, and opens with the messages it opened with', () => {
    for (const rollout of flat) {
      expect(rollout.response.tools).toEqual(BIXBENCH_TOOLS);
      const [task, notebook] = rollout.responses_create_params.input;
      // The recorded question, read back from its Python repr, renders to the recorded message again.
      const repr = task!.content.replace('Using the available tools and data, write a jupyter notebook to solve the following problem: ', '');
      const question = repr.slice(1, -1).replaceAll("\\'", "'");
      expect(taskMessage(question)).toBe(task!.content);
      expect(notebook!.content).toBe(stateMessage([]));
    }
    const quotes = flat.map((r) => r.responses_create_params.input[0]!.content.split('problem: ')[1]![0]);
    expect(new Set(quotes)).toEqual(new Set(["'", '"']));
  });

  it("replays every well-formed edit_cell call to the recorded reply and the recorded notebook's cells", () => {
    let edits = 0;
    for (const rollout of flat) {
      const output = rollout.response.output as ConversationItem[];
      let cells: NotebookCell[] = [];
      output.forEach((item, i) => {
        if (item.type !== 'function_call' || item.name !== 'edit_cell') return;
        const args = JSON.parse(item.arguments) as { contents?: string; idx?: number | null };
        if (args.contents === undefined || !('idx' in args)) return;
        const edit = applyEdit(cells, args.contents, args.idx ?? null);
        cells = edit.cells;
        const reply = output.slice(i).find((o) => o.type === 'function_call_output') as { output: string };
        expect(reply.output).toBe(edit.message);
        const view = output.slice(i).find((o) => o.type === 'message' && (o as { role?: string }).role === 'user') as { content: string };
        cells.forEach((cell, n) => expect(view.content).toContain(`### Cell ${n}:\n\`\`\`python\n${cell.source}\n\`\`\``));
        edits++;
      });
    }
    expect(edits).toBeGreaterThan(8);
  });

  it('cannot re-verify them here: their rows hold only task_idx, and their problems and capsules are on Hugging Face', async () => {
    expect(flat.map((r) => r.reward)).toEqual([0, 0, 0, 0, 0]);
    // None of them submitted a solution, which Aviary scores 0, as verify does for an unsubmitted episode.
    expect(flat.flatMap((r) => (r.response.output as ConversationItem[]).filter((o) => o.type === 'function_call' && o.name === 'submit_solution'))).toEqual([]);
    const rollouts = recorded.map((row, i) => ({ line: i + 1, row: flattenTransitions(row) }));
    // The rollouts' input is the environment's opening, which NeMo Gym's rows (input []) do not carry: no row joins.
    const joined = await reverifyRollouts({ env: aviaryBixbench, rollouts, tasks: rows.map((row, i) => ({ line: i + 1, row })), force: true, skipUnjoined: true, judge: textJudge().judge });
    expect(joined.checked).toEqual([]);
    expect(joined.unjoined.map((u) => u.reason)).toEqual(
      flat.map((r) => expect.stringContaining(`its _ng_task_index ${r._ng_task_index} names the task on line ${r._ng_task_index + 1}, whose input differs`)),
    );
    // Rows that do carry it join, and are refused for the capsule that is not here.
    const own = flat.map((r, i) => ({ line: i + 1, row: { task_idx: r._ng_task_index, responses_create_params: r.responses_create_params } }));
    await expect(reverifyRollouts({ env: aviaryBixbench, rollouts, tasks: own, force: true, judge: textJudge().judge })).rejects.toMatchObject({
      details: expect.arrayContaining([expect.stringMatching(/^line 1: task 0 does not fit environment aviary_bixbench: task_idx: aviary_bixbench task_idx 3: .*is not here/)]),
    });
  });
});

/** Runs tool calls in order from the given state (a fresh session when none). */
async function play(env: AnyEnvironment, task: BixBenchTask, calls: [string, unknown][], from?: BixBenchEpisode) {
  let state = from ?? ((await env.seedSession(task)) as BixBenchEpisode);
  const replies: { status: number; text: string }[] = [];
  for (const [name, args] of calls) {
    const result = await runTool(env, task, state, name, JSON.stringify(args));
    state = result.state as BixBenchEpisode;
    replies.push({ status: result.status, text: result.status === 200 ? (JSON.parse(result.output) as string) : result.output });
  }
  return { state, replies };
}

describe('aviary_bixbench tools in a jailed Jupyter kernel', () => {
  it('runs the whole notebook after every edit, over the capsule, and shows it as Aviary does', { timeout: 120_000 }, async () => {
    const task = taskOf(standin, rows[2]);
    const { state, replies } = await play(standin, task, [
      ['list_workdir', {}],
      ['edit_cell', { contents: "import pandas as pd\ntrial = pd.read_csv('trial.csv')\nprint(trial.shape)", idx: null }],
      ['edit_cell', { contents: "b = trial[trial.arm == 'B']\nint(b.responded.sum())", idx: null }],
      ['edit_cell', { contents: "import pandas as pd\ntrial = pd.read_csv('trial.csv').head(4)\nopen('out.txt', 'w').write('made')", idx: 0 }],
      ['edit_cell', { contents: 'undefined_name', idx: -9 }],
      ['list_workdir', {}],
      ['edit_cell', { contents: 'x' }],
    ]);
    expect(replies[0]!.text).toBe(
      '{\n  "files": [\n    "notebook.md",\n    "trial.csv"\n  ],\n  "directories": {},\n  "raw": {\n    "files": [\n      "sites.csv"\n    ]\n  }\n}\n\n' +
        'Markdown representation of notebook contents (/workspace/notebook.ipynb):\n\n',
    );
    expect(replies[1]!.text).toBe(
      "Appended new cell (#0).\n\nMarkdown representation of notebook contents (/workspace/notebook.ipynb):\n\n### Cell 0:\n```python\nimport pandas as pd\ntrial = pd.read_csv('trial.csv')\nprint(trial.shape)\n```\n### Output 0:\n```\n(8, 4)\n\n```",
    );
    expect(replies[2]!.text).toContain('### Output 1:\n```\n3\n```');
    // Cell 1 ran again after cell 0 changed, in a fresh kernel: it saw only the first four patients, none of them in arm B.
    expect(replies[3]!.text).toMatch(/^Edited cell #0\.\n\n/);
    expect(replies[3]!.text).toContain('### Output 0:\n```\n4\n```');
    expect(replies[3]!.text).toContain('### Output 1:\n```\n0\n```');
    expect(replies[4]!.text).toMatch(/^Encountered exception during tool call: IndexError\('list index out of range'\)\n\n/);
    expect(JSON.parse(replies[5]!.text.split('\n\nMarkdown')[0]!)).toMatchObject({ files: ['notebook.ipynb', 'notebook.md', 'out.txt', 'trial.csv'] });
    expect(replies[6]).toMatchObject({ status: 422 });
    expect(state.cells.map((c) => c.source)).toEqual([
      "import pandas as pd\ntrial = pd.read_csv('trial.csv').head(4)\nopen('out.txt', 'w').write('made')",
      "b = trial[trial.arm == 'B']\nint(b.responded.sum())",
    ]);
  });

  it('shows errors in the cell, and nothing of the host or the network reaches the kernel', { timeout: 120_000 }, async () => {
    const task = taskOf(standin, rows[0]);
    const code = [
      'import os, socket',
      "print(sorted(os.listdir('/')))",
      'try:',
      "    socket.create_connection(('1.1.1.1', 53), timeout=3)",
      'except OSError as e:',
      "    print('network:', e.errno)",
      "open('/etc/passwd')",
    ].join('\n');
    const { replies } = await play(standin, task, [['edit_cell', { contents: code, idx: null }]]);
    const text = replies[0]!.text;
    expect(text).toMatch(/network: (101|99|111)/);
    expect(text).toContain('FileNotFoundError');
    expect(text).toContain("No such file or directory: '/etc/passwd'");
    expect(text).not.toContain("'root'");
  });

  it('ends the episode when a notebook run outlives cell_execution_timeout, with the message Aviary gives', { timeout: 120_000 }, async () => {
    const env = createAviaryBixbench({ capsule_dir: STANDIN, cell_execution_timeout: 3 });
    const task = taskOf(env, rows[0]);
    const { state, replies } = await play(env, task, [
      ['edit_cell', { contents: 'import time\ntime.sleep(60)', idx: null }],
      ['list_workdir', {}],
    ]);
    expect(replies[0]!.text).toMatch(/^Encountered exception during tool call: TimeoutError\('Notebook execution timed out after 300\.0 seconds'\)\n\n/);
    expect(replies[1]!.text).toBe('The episode is over; no further tool calls are played.');
    expect(state).toMatchObject({ done: true, timed_out: true, answer: null });
    expect(await env.verify(task, EMPTY, { state, judge: textJudge().judge })).toMatchObject({ reward: 0, failure_reason: 'notebook_timeout' });
  });

  it('goes on in another process: the workspace is made again from the capsule and the notebook of the state', { timeout: 120_000 }, async () => {
    const task = taskOf(standin, rows[3]);
    const first = await play(standin, task, [['edit_cell', { contents: "import pandas as pd\ndf = pd.read_csv('expression.csv')", idx: null }]]);
    // A second environment holds none of the first's sessions, as a worker that did not play the first call.
    const other = createAviaryBixbench({ capsule_dir: STANDIN });
    const { replies } = await play(
      other,
      task,
      [
        ['list_workdir', {}],
        ['edit_cell', { contents: "print(df[(df.gene == 'TP53') & (df.condition == 'control')]['count'].median())", idx: null }],
      ],
      first.state,
    );
    expect(JSON.parse(replies[0]!.text.split('\n\nMarkdown')[0]!)).toEqual({ files: ['expression.csv', 'notebook.ipynb', 'notebook.md'] });
    expect(replies[1]!.text).toContain('### Output 1:\n```\n6.0\n\n```');
  });

  it('grades the submitted solution with the judge: 1 for a bare yes, and nothing without a submission', { timeout: 120_000 }, async () => {
    const task = taskOf(standin, rows[0]);
    const { state, replies } = await play(standin, task, [
      ['submit_solution', { solution: '24.0' }],
      ['edit_cell', { contents: '1', idx: null }],
    ]);
    expect(replies[0]!.text).toMatch(/^Solution submitted; it is graded when the episode ends\.\n\nMarkdown representation/);
    expect(replies[1]!.text).toBe('The episode is over; no further tool calls are played.');
    const yes = textJudge('Yes');
    expect(await standin.verify(task, EMPTY, { state, judge: yes.judge })).toMatchObject({ reward: 1, submitted_solution: '24.0', judge_reply: 'Yes' });
    expect(yes.sent).toEqual([{ input: [{ role: 'user', content: judgePrompt(task.bixbench.problem.question, '24.0', '24.0') }], temperature: 0 }]);
    expect(await standin.verify(task, EMPTY, { state, judge: textJudge('Yes, 24.0 is correct.').judge })).toMatchObject({ reward: 0, failure_reason: 'judged_incorrect' });
    await expect(standin.verify(task, EMPTY, { state, judge: failingJudge })).rejects.toBeInstanceOf(JudgeError);
    const unsubmitted = (await standin.seedSession(task)) as BixBenchEpisode;
    expect(await standin.verify(task, EMPTY, { state: unsubmitted, judge: failingJudge })).toMatchObject({ reward: 0, failure_reason: 'no_solution_submitted' });
  });

  it('lists nested folders and leaves symlinks unfollowed', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gymflow-bixbench-tree-'));
    mkdirSync(path.join(dir, 'raw', 'deep'), { recursive: true });
    writeFileSync(path.join(dir, 'raw', 'deep', 'x.csv'), '');
    writeFileSync(path.join(dir, 'a.csv'), '');
    expect(readTree(dir)).toEqual({ files: ['a.csv'], dirs: { raw: { files: [], dirs: { deep: { files: ['x.csv'], dirs: {} } } } } });
  });
});
