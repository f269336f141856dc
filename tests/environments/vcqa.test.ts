import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createVcqa, vcqa, type VcqaTask } from '../../src/environments/vcqa';
import { mustHaveCriteria, parseYesNo } from '../../src/environments/vcqa/judge';
import { promptCriterion, recordedReplies, recordedTaskRow } from '../../src/environments/vcqa/recorded';
import { grep } from '../../src/environments/vcqa/search';
import { snapshotTree } from '../../src/environments/vcqa/snapshot';
import { toolDefinitions, type VcqaState } from '../../src/environments/vcqa/tools';
import type { JudgeCall } from '../../src/environments/types';
import type { ResponseCreateParams, ResponseObject } from '../../src/schemas/responses';
import { answerResponse, FIXTURES, judgeReply, readJsonl } from './nemo_fixtures';

const CASES = readJsonl<Record<string, any>>(path.join(import.meta.dirname, 'vcqa.cases.jsonl'));
const DIR = path.join(FIXTURES, 'vcqa');
const HEADS = { fileset: null, githistory: 'b18293036a80841592e52abd454b296621f9ef9c', githistory_first: '91acd4db41be3a5cf2f659e0a0a5bdf8c4412e93' } as const;
const FILESET_KEY = 'fileset/tinykv-481693abcf53a422112895d64cb51a611145fc53.tar.gz';

const trees = await mkdtemp(path.join(tmpdir(), 'gymflow-vcqa-test-'));
// The shell's jail runs as nobody when the tests run as root.
await chmod(trees, 0o755);
afterAll(() => rm(trees, { recursive: true, force: true }));
const env = createVcqa({ snapshot_dir: trees });
const edgeEnv = createVcqa({ snapshot_dir: trees, artifact_url_prefix: import.meta.dirname });

function task(meta: Record<string, unknown>): VcqaTask {
  return env.taskSchema.parse({ responses_create_params: { input: [{ role: 'user', content: 'Where is eviction?' }] }, verifier_metadata: meta });
}

const TASKS: Record<string, { env: typeof env; task: VcqaTask }> = {
  edge: { env: edgeEnv, task: task({ dataset_kind: 'fileset', artifact_key: 'vcqa.edge.tar.gz' }) },
  fileset: { env, task: task({ dataset_kind: 'fileset', artifact_key: FILESET_KEY }) },
  githistory: { env, task: task({ dataset_kind: 'githistory', artifact_key: 'githistory/tinykv.bundle', head_sha: HEADS.githistory }) },
  githistory_first: { env, task: task({ dataset_kind: 'githistory', artifact_key: 'githistory/tinykv.bundle', head_sha: HEADS.githistory_first }) },
};

/** `ls -la` lines without what belongs to the machine (owners, times) or lies outside the tree (`..`). */
function lsShape(text: string): string[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const f = line.split(/\s+/);
      if (f[0] === 'total') return line;
      const name = f.slice(8).join(' ');
      return name === '..' ? '..' : [f[0], f[1], f[4], name].join(' ');
    });
}

type Body = { result: any; error: string | null };

/** What NeMo Gym's output and ours must agree on, per tool. */
function comparable(tool: string, body: Body): unknown {
  if (tool === 'list_dir' && body.result) return { ...body, result: { ...body.result, text: lsShape(body.result.text) } };
  // rg searches files in parallel: its order is not defined, the lines are.
  if (tool === 'grep' && body.result) return { ...body, result: { ...body.result, text: body.result.text.split('\n').sort() } };
  if (tool === 'grep' && body.error?.startsWith('grep failed (exit=2): regex parse error:')) return { result: null, error: 'regex parse error' };
  return body;
}

describe('vcqa tools answer like NeMo Gym 0.7.0 (tests/environments/vcqa.cases.py)', () => {
  it('offers the same tool definitions, with and without the distractors', () => {
    for (const c of CASES.filter((c) => c.kind === 'tool_definitions')) expect(toolDefinitions(c.include_distractors)).toEqual(c.tools);
    const tools = vcqa.taskSchema.parse({ responses_create_params: { input: 'q' }, verifier_metadata: { dataset_kind: 'fileset', artifact_key: 'k' } }).responses_create_params.tools;
    expect(tools).toEqual(toolDefinitions(true));
  });

  const byTree = Object.keys(TASKS).map((tree) => [tree, CASES.filter((c) => c.kind === 'tool' && c.tree === tree)] as const);
  it.each(byTree)('%s working tree: every recorded call gives the same reply', { timeout: 120_000 }, async (tree, cases) => {
    const { env: e, task: t } = TASKS[tree]!;
    let state: VcqaState = await e.seedSession(t);
    let compared = 0;
    for (const c of cases) {
      const tool = e.tools[c.tool];
      if (!tool) {
        // An unknown tool is answered by Gymflow's tool runner (404 {"detail": "Not Found"}), not by NeMo Gym's dispatch.
        expect(c.result.error).toMatch(/^unknown tool/);
        continue;
      }
      const out = await tool.run(tool.args.parse(c.args), { task: t, state });
      state = out.state;
      expect(comparable(c.tool, out.body as Body), `${c.tool} ${JSON.stringify(c.args)}`).toEqual(comparable(c.tool, c.result));
      compared++;
    }
    expect(compared).toBeGreaterThan(2);
  });

  it('ends a search whose regex backtracks without end at its deadline (rg has no such regexes)', async () => {
    const tree = await snapshotTree(trees, { datasetKind: 'fileset', artifactUrl: path.join(import.meta.dirname, 'vcqa.edge.tar.gz') });
    const started = Date.now();
    const res = await grep(tree, '/codebase', { pattern: '(\\w+\\s?)+!$', fixedStrings: false, caseInsensitive: false, maxCount: null, keepBytes: 1024, deadlineMs: 500 });
    expect(res).toMatchObject({ timedOut: true });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("keeps the start of a shell's runaway output and counts all of it", async () => {
    const { env: e, task: t } = TASKS.edge!;
    const out = (await e.tools.bash!.run({ command: 'yes | head -c 5000000' }, { task: t, state: { todos: '' } })).body as Body;
    expect(out.result.stdout).toEqual({ text: 'y\n'.repeat(16384), truncated: true, original_bytes: 5_000_000 });
  });

  it('keeps the tree read-only and the shell inside it', async () => {
    const { env: e, task: t } = TASKS.edge!;
    const bash = (command: string) => e.tools.bash!.run({ command }, { task: t, state: { todos: '' } });
    const out = (await bash('touch /codebase/x 2>&1; ls / | sort | tr "\\n" " "; cat /etc/hostname 2>&1; echo $HOME')).body as Body;
    expect(out.result.stdout.text).toContain('Read-only file system');
    expect(out.result.stdout.text).not.toMatch(/\bwork\b|\broot\b|\bhome\b/);
    expect(out.result.stdout.text).toContain('No such file or directory');
  });
});

describe('vcqa judge parsing and scoring agree with NeMo Gym 0.7.0', () => {
  it('reads YES/NO replies as parse_yes_no does', () => {
    for (const c of CASES.filter((c) => c.kind === 'parse')) expect(parseYesNo(c.text), JSON.stringify(c.text)).toBe(c.raises ? undefined : c.parsed);
  });

  it('words the must-have criteria as extract_must_have_items does', () => {
    for (const c of CASES.filter((c) => c.kind === 'rubric')) expect(mustHaveCriteria(c.rubric)).toEqual(c.criteria);
  });

  it.each(CASES.filter((c) => c.kind === 'grade').map((c, i) => [i, c] as const))('grade case %i: same prompts, verdicts, reward and error', async (_i, c) => {
    const replies = new Map<string, string | null>((c.result.per_item as { criterion: string; raw: string | null }[]).map((p) => [p.criterion, p.raw]));
    const sent: ResponseCreateParams[] = [];
    const judge: JudgeCall = async (params) => {
      sent.push(params);
      const user = (params.input as { content: string }[])[1]!.content;
      const criterion = [...replies.keys()].find((k) => user.includes(`CRITERION:\n${k}\n\nReply`))!;
      const raw = replies.get(criterion);
      return raw === null || raw === undefined ? { id: 'j', object: 'response', output: [] } : judgeReply(raw);
    };
    const t = vcqa.taskSchema.parse({
      responses_create_params: { input: [{ role: 'user', content: 'Where is eviction?' }] },
      verifier_metadata: { dataset_kind: 'fileset', artifact_key: 'k', rubric: c.rubric },
    });
    const result = await vcqa.verify(t, answerResponse(c.answer), { state: { todos: '' }, judge });
    expect({ reward: result.reward, must_pass: result.must_pass, must_total: result.must_total, per_item: result.judge_per_item, error: result.error }).toEqual({
      ...c.result,
      per_item: c.result.per_item,
    });
    expect(sent.map((p) => (p.input as { content: string }[]).map((m) => m.content))).toEqual(c.sent.map((b: { messages: { content: string }[] }) => b.messages.map((m) => m.content)));
    for (const p of sent) expect(p.max_output_tokens).toBe(c.sent[0].max_completion_tokens);
  });
});

interface RecordedRollout {
  responses_create_params: { input: { role: string; content: string }[] };
  response: ResponseObject & { tools: unknown[] };
  reward: number;
  must_pass: number;
  must_total: number;
  final_answer: string;
  error: string | null;
  judge_per_item: { criterion: string; passed: boolean; error: string | null; raw: string }[];
}

describe("vcqa reverifies NeMo Gym 0.7.0's recorded rollouts", () => {
  const rollouts = readJsonl<RecordedRollout>(path.join(DIR, 'example_rollouts.jsonl'));

  it.each(rollouts.map((r, i) => [i, r] as const))('rollout %i: the recorded judge replies give the recorded reward', async (_i, rollout) => {
    // NeMo Gym 0.7.0 ships the rollouts, not their rows: each row is rebuilt from the criteria it was judged on.
    const t = vcqa.taskSchema.parse(recordedTaskRow(rollout as unknown as Record<string, unknown>));
    const replies = recordedReplies(rollout as unknown as Record<string, unknown>);
    // The problem is the user message stripped, as NeMo Gym joins and strips it.
    const problem = rollout.responses_create_params.input.find((m) => m.role === 'user')!.content.trim();
    const judge: JudgeCall = async (params) => {
      const user = (params.input as { content: string }[])[1]!.content;
      expect(user.startsWith(`PROBLEM:\n${problem}\n\nMODEL ANSWER:\n${rollout.final_answer}\n\nCRITERION:\n`)).toBe(true);
      return judgeReply(replies.get(promptCriterion(user))!);
    };
    const result = await vcqa.verify(t, rollout.response, { state: { todos: '' }, judge });
    expect(result.reward).toBe(rollout.reward);
    expect(result).toMatchObject({ must_pass: rollout.must_pass, must_total: rollout.must_total, final_answer: rollout.final_answer, error: rollout.error, judge_per_item: rollout.judge_per_item });
    expect(result.failure_reason).toBe('must_have_criteria_failed');
    // The tools the model was offered are the ones Gymflow injects.
    expect(rollout.response.tools).toEqual(toolDefinitions(true));
  });
});

describe('vcqa task rows', () => {
  it("takes NeMo Gym's example rows and injects the tools; refuses a githistory row without head_sha, naming the field", () => {
    const rows = readJsonl(path.join(DIR, 'example.jsonl'));
    for (const row of rows) expect(vcqa.taskSchema.parse(row).responses_create_params.tools).toHaveLength(10);
    const bad = vcqa.taskSchema.safeParse({ ...rows[3], verifier_metadata: { ...(rows[3] as { verifier_metadata: object }).verifier_metadata, head_sha: null } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]).toMatchObject({ path: ['verifier_metadata', 'head_sha'], message: 'githistory rows require verifier_metadata.head_sha' });
    expect(
      createVcqa({ include_distractor_tools: false })
        .taskSchema.parse(rows[0])
        .responses_create_params.tools!.map((t) => (t as { name: string }).name),
    ).toEqual(['read_file', 'grep', 'glob', 'list_dir', 'write_todos', 'bash']);
  });

  it('checks out the git history at head_sha, and makes each working tree once', async () => {
    const first = TASKS.githistory_first!;
    const run = async (command: string) => ((await first.env.tools.bash!.run({ command }, { task: first.task, state: { todos: '' } })).body as Body).result.stdout.text;
    expect(await run('git rev-parse HEAD')).toBe(`${HEADS.githistory_first}\n`);
    const ls = await run('ls /codebase');
    expect(ls).not.toContain('CHANGELOG.md');
    expect(await run('git log --all --oneline | wc -l')).toBe('3\n');
  });

  it('drops special files and set-id bits an archive carries', async () => {
    const src = await mkdtemp(path.join(tmpdir(), 'gymflow-vcqa-special-'));
    try {
      execFileSync('bash', ['-c', 'mkdir -p repo && echo x > repo/a && chmod u+s repo/a && mkfifo repo/pipe && tar -czf repo.tar.gz repo'], { cwd: src });
      const tree = await snapshotTree(trees, { datasetKind: 'fileset', artifactUrl: path.join(src, 'repo.tar.gz') });
      expect(readdirSync(tree)).toEqual(['a']);
      expect(statSync(path.join(tree, 'a')).mode & 0o6000).toBe(0);
    } finally {
      await rm(src, { recursive: true, force: true });
    }
  });

  it('grades an empty answer 0 without the judge, and a missing rubric as unscorable', async () => {
    const t = task({ dataset_kind: 'fileset', artifact_key: FILESET_KEY, rubric: { judge: [{ title: 'x', importance: 'must have' }] } });
    const never: JudgeCall = async () => {
      throw new Error('not asked');
    };
    expect(await vcqa.verify(t, answerResponse('  '), { state: { todos: '' }, judge: never })).toMatchObject({ reward: 0, must_total: 1, failure_reason: 'empty_answer', error: 'empty model answer' });
    const none = task({ dataset_kind: 'fileset', artifact_key: FILESET_KEY });
    expect(await vcqa.verify(none, answerResponse('x'), { state: { todos: '' }, judge: never })).toMatchObject({ reward: 0, must_total: 0, failure_reason: 'no_rubric' });
  });
});
