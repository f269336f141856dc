// pinchbench: NeMo Gym's recorded rollouts re-verified with `gym eval reverify`, and PinchBench's grading
// (automated checks, workspace rebuilt from the episode, judge reply reading) on edge cases whose scores are
// worked out by hand from PinchBench's grading rules.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPinchBench, PinchBenchTask } from '../../src/environments/pinchbench';
import { averageScores, GRADERS, nextTuesday } from '../../src/environments/pinchbench/graders';
import { normalizeVerdict, parseJudgeReply, transcriptSummary } from '../../src/environments/pinchbench/judge';
import { taskDefinition } from '../../src/environments/pinchbench/tasks';
import { applyEdits, replayWorkspace } from '../../src/environments/pinchbench/workspace';
import type { ResponseObject } from '../../src/schemas/responses';
import { PACKAGE_ROOT } from '../../src/util/paths';
import { gymHere } from '../helpers/gym-here';

const DATA = path.join(PACKAGE_ROOT, 'src/environments/pinchbench/data');
const ROLLOUTS = path.join(DATA, 'example_rollouts.jsonl');
const TASKS = path.join(DATA, 'example.jsonl');
const readJsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

const recorded = readJsonl(ROLLOUTS);

function response(...output: unknown[]): ResponseObject {
  return { id: 'r', object: 'response', output } as ResponseObject;
}
const say = (text: string) => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const call = (name: string, args: unknown) => ({ type: 'function_call', call_id: `c_${name}`, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
const row = (taskId: string) => PinchBenchTask.parse({ responses_create_params: { input: 'x' }, verifier_metadata: { task_id: taskId } });

async function reverify(extra: string[]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'gymflow-pinchbench-'));
  const out = path.join(dir, 'out.jsonl');
  const r = await gymHere(['eval', 'reverify', ROLLOUTS, '--env', 'pinchbench', '--tasks', TASKS, '--judge-model', 'mock', '-o', out, ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return { stdout: r.stdout, rows: readJsonl(out), dir };
}

describe('gym eval reverify over NeMo Gym recorded PinchBench rollouts', () => {
  it('reproduces the three automated rewards on the day they ran; the two judge-graded ones need the judge NeMo Gym did not record', async () => {
    const { stdout, rows } = await reverify(['--env-option', 'today=2026-06-29']);
    expect(stdout).toContain('5 re-verified');
    expect(stdout).toContain('agreement: 3/5');
    const byTask = Object.fromEntries(rows.map((r) => [r.task_id, r]));
    const recordedReward = Object.fromEntries(recorded.map((r) => [r.verifier_metadata.task_id, r.reward]));
    expect(recordedReward).toEqual({ task_sanity: 1, task_calendar: 1, task_todo_list_cleanup: 1, task_daily_summary: 0.9, task_email: 0.89 });
    for (const id of ['task_sanity', 'task_calendar', 'task_todo_list_cleanup']) {
      expect({ id, reward: byTask[id].reward, reason: byTask[id].failure_reason }).toEqual({ id, reward: recordedReward[id], reason: null });
    }
    expect(byTask.task_todo_list_cleanup.grading_breakdown).toEqual({
      file_created: 1,
      organized_by_project: 1,
      all_items_present: 1,
      duplicates_marked_partial: 1,
      duplicates_marked_all: 1,
      no_false_completions: 1,
      overdue_flagged: 1,
      overdue_not_over_flagged: 1,
    });
    // The mock judge answers with no JSON: PinchBench scores an unreadable verdict 0.
    for (const id of ['task_daily_summary', 'task_email']) {
      expect(byTask[id]).toMatchObject({ grading_type: 'llm_judge', reward: 0, failure_reason: 'judge_reply_unreadable' });
    }
    // The judge is shown the agent's tool calls, from the recorded episode.
    expect(byTask.task_email.judge_prompt).toContain('Tool: write({"path": "email_draft.txt", "content": "Subject: Meeting Request \\u2013 Regretfully');
    expect(byTask.task_daily_summary.workspace_files).toContain('daily_briefing.md');
  }, 120_000);

  it('on another day the calendar task loses only its date criterion (the ICS says 2026-06-30)', async () => {
    const { rows } = await reverify(['--env-option', 'today=2026-12-03']);
    const cal = rows.find((r) => r.task_id === 'task_calendar');
    expect(cal.grading_breakdown).toEqual({ file_created: 1, attendee_present: 1, title_correct: 1, description_present: 1, time_correct: 1, date_correct: 0 });
    expect(cal.reward).toBeCloseTo(5 / 6, 12);
    expect(cal.failure_reason).toBe('criteria_failed');
  }, 120_000);

  it('with a FAKE judge replying as PinchBench asks, the judge-graded tasks get its total', async () => {
    const first = await reverify(['--env-option', 'today=2026-06-29']);
    const exchanges = first.rows
      .filter((r) => r.judge_prompt)
      .map((r) => ({
        responses_create_params: { input: [{ type: 'message', role: 'user', content: r.judge_prompt }] },
        response: {
          output: [
            say(
              r.task_id === 'task_email'
                ? 'Here you go:\n```json\n{"scores": {"tone": 0.9, "structure": 0.88}, "total": 0.89, "notes": "ok"}\n```'
                : '{"scores": {"coverage": {"score": 0.9, "weight": 0.3}}, "notes": "good"}',
            ),
          ],
        },
      }));
    const replies = path.join(first.dir, 'judge.jsonl');
    writeFileSync(replies, exchanges.map((e) => JSON.stringify(e) + '\n').join(''));
    const { stdout, rows } = await reverify(['--env-option', 'today=2026-06-29', '--mock-replay', replies]);
    expect(stdout).toContain('agreement: 5/5');
    const email = rows.find((r) => r.task_id === 'task_email');
    expect(email).toMatchObject({ reward: 0.89, grading_breakdown: { tone: 0.9, structure: 0.88 }, grading_notes: 'ok' });
    // No total: the mean of the criteria (one, nested as {score, weight}).
    expect(rows.find((r) => r.task_id === 'task_daily_summary')).toMatchObject({ reward: 0.9, grading_breakdown: { coverage: 0.9 }, grading_notes: 'good' });
  }, 180_000);
});

describe('task rows', () => {
  it('take the id from verifier_metadata or the top level, and refuse a missing or unknown one naming the field', () => {
    expect(PinchBenchTask.safeParse({ responses_create_params: { input: 'x' }, task_id: 'task_email' }).success).toBe(true);
    const unknown = PinchBenchTask.safeParse({ responses_create_params: { input: 'x' }, verifier_metadata: { task_id: 'task_weather' } });
    expect(unknown.success).toBe(false);
    expect(unknown.error!.issues[0]).toMatchObject({ path: ['verifier_metadata', 'task_id'] });
    expect(unknown.error!.issues[0]!.message).toContain('unknown PinchBench task "task_weather"');
    const missing = PinchBenchTask.safeParse({ responses_create_params: { input: 'x' }, verifier_metadata: {} });
    expect(missing.error!.issues[0]!.message).toContain('needs verifier_metadata.task_id');
  });

  it('every shipped row joins a definition whose prompt is the row prompt', () => {
    for (const r of readJsonl(TASKS)) expect(taskDefinition(r.verifier_metadata.task_id).prompt).toBe(r.responses_create_params.input[0].content);
  });
});

describe('the workspace rebuilt from the episode', () => {
  const def = taskDefinition('task_todo_list_cleanup');
  it('starts from the task files, applies write and edit in order, and counts shell calls it cannot replay', () => {
    const ws = replayWorkspace(
      def,
      response(
        call('write', { path: 'a.txt', content: 'one two one' }),
        // Refused: "one" occurs twice.
        call('edit', { path: 'a.txt', oldText: 'one', newText: 'ONE' }),
        call('edit', {
          path: 'a.txt',
          edits: [
            { oldText: 'two', newText: '2' },
            { oldText: 'one two', newText: 'x' },
          ],
        }),
        call('edit', {
          path: 'a.txt',
          edits: [
            { oldText: 'one t', newText: 'ONE t' },
            { oldText: 'o one', newText: 'o 1' },
          ],
        }),
        call('edit', { file_path: '/workspace/a.txt', old_string: 'missing', new_string: 'x' }),
        call('write', { path: '/tmp/pinchbench/0001/agent_workspace/sub/b.md', content: 'b' }),
        call('write', { path: '/etc/passwd', content: 'no' }),
        call('write', { path: '../up.txt', content: 'no' }),
        call('write', '{not json'),
        call('exec', { command: 'echo hi > c.txt' }),
        call('read', { path: 'todos.json' }),
      ),
    );
    expect(Object.fromEntries(ws.files)).toEqual({ 'todos.json': def.workspace_files[0]!.content, 'a.txt': 'ONE two 1', 'sub/b.md': 'b' });
    expect(ws.unreplayed).toEqual(['exec']);
    expect(ws.outside).toEqual(['/etc/passwd', '../up.txt']);
  });
});

describe('automated checks', () => {
  const env = createPinchBench({ today: '2026-06-29' });
  const verify = (taskId: string, ...output: unknown[]) => env.verify(row(taskId), response(...output), { state: null });

  it('sanity: any non-blank assistant text', async () => {
    expect((await verify('task_sanity', say('  \n'))).reward).toBe(0);
    expect(await verify('task_sanity', say(' '), say('Hello'))).toMatchObject({ reward: 1, failure_reason: null });
    expect((await verify('task_sanity')).failure_reason).toBe('no_response');
  });

  it('calendar: next Tuesday counted from the grading day (a Tuesday counts the week after)', async () => {
    expect(nextTuesday(new Date('2026-06-29T00:00:00Z'))).toBe('20260630'); // Monday
    expect(nextTuesday(new Date('2026-06-30T00:00:00Z'))).toBe('20260707'); // Tuesday
    expect(nextTuesday(new Date('2026-12-31T00:00:00Z'))).toBe('20270105'); // Thursday, across a year
    const ics = (body: string) => call('write', { path: 'meeting.ics', content: body });
    const none = await verify('task_calendar', say('I cannot access calendars.'));
    expect(none).toMatchObject({ reward: 0, failure_reason: 'output_file_missing' });
    // Lower-case keys pass the case-insensitive checks but not DTSTART's; 3pm written as T030000 is not 15:00.
    const partial = await verify('task_calendar', ics('dtstart:20260630T030000\nsummary: project sync\nattendee:mailto:JOHN@EXAMPLE.COM\ndescription: Q1\n roadmap'));
    expect(partial.grading_breakdown).toEqual({ file_created: 1, attendee_present: 1, title_correct: 1, description_present: 0, time_correct: 0, date_correct: 1 });
    // A nested .ics is not at the top of the workspace.
    expect((await verify('task_calendar', call('write', { path: 'cal/m.ics', content: 'DTSTART:20260630T150000' }))).grading_breakdown).toMatchObject({ file_created: 0 });
  });

  it('todo cleanup: bands for partial work, flat lists, malformed files', async () => {
    const base = JSON.parse(taskDefinition('task_todo_list_cleanup').workspace_files[0]!.content).todos as Record<string, unknown>[];
    const write = (data: unknown) => call('write', { path: 'todos_cleaned.json', content: typeof data === 'string' ? data : JSON.stringify(data) });
    expect((await verify('task_todo_list_cleanup', write('{"projects": '))).reward).toBe(1 / 8);
    // A flat list: not organized; nothing marked, nothing flagged.
    const flat = await verify('task_todo_list_cleanup', write(base));
    expect(flat.grading_breakdown).toEqual({
      file_created: 1,
      organized_by_project: 0,
      all_items_present: 1,
      duplicates_marked_partial: 0,
      duplicates_marked_all: 0,
      no_false_completions: 1,
      overdue_flagged: 0,
      overdue_not_over_flagged: 1,
    });
    // 12 items kept; duplicates 4, 7 and 10 completed (13 dropped); item 1 wrongly completed; 5 overdue flags
    // right (2, 3, 6, 8, 9), item 5 flagged wrongly, and `"overdue": "true"` (a string) is no flag.
    const items = base
      .filter((t) => ![13, 14, 15].includes(t.id as number))
      .map((t) => {
        const id = t.id as number;
        return {
          ...t,
          ...([1, 4, 7, 10].includes(id) ? { status: 'completed' } : {}),
          ...([2, 3, 6, 8, 9, 5].includes(id) ? { overdue: true } : {}),
          ...(id === 12 ? { overdue: 'true' } : {}),
        };
      });
    const partial = await verify('task_todo_list_cleanup', write({ projects: { all: items, junk: 'not a list' } }));
    expect(partial.grading_breakdown).toEqual({
      file_created: 1,
      organized_by_project: 1,
      all_items_present: 0.5,
      duplicates_marked_partial: 1,
      duplicates_marked_all: 0,
      no_false_completions: 0.5,
      overdue_flagged: 0.75,
      overdue_not_over_flagged: 0.5,
    });
    expect(partial.reward).toBeCloseTo((1 + 1 + 0.5 + 1 + 0 + 0.5 + 0.75 + 0.5) / 8, 12);
  });
});

describe('reading the judge reply as PinchBench does', () => {
  it('a ```json block first, then the last balanced object with "scores", then any object, then prose', () => {
    expect(parseJudgeReply('x ```json\n{"total": 0.4}\n``` {"scores": {}, "total": 0.9}')).toEqual({ total: 0.4 });
    expect(parseJudgeReply('{"scores": {"a": 1}, "total": 0.5} and later {"other": 1}')).toEqual({ scores: { a: 1 }, total: 0.5 });
    expect(parseJudgeReply('{"a": 1} {"b": 2}')).toEqual({ b: 2 });
    // Nested braces stay one candidate; a stray "}" first drives the depth negative, so the object after it is lost.
    expect(parseJudgeReply('{"scores": {"x": {"score": 1}}}')).toEqual({ scores: { x: { score: 1 } } });
    expect(parseJudgeReply('} {"total": 0.3}')).toEqual({});
    expect(parseJudgeReply('Overall score: 0.72, well done')).toEqual({ scores: {}, total: 0.72, notes: 'Score extracted from prose (JSON parse failed)' });
    expect(parseJudgeReply('Total: 1.5')).toEqual({});
    expect(parseJudgeReply('   ')).toEqual({});
  });

  it('totals and scores in the shapes judges give', () => {
    expect(normalizeVerdict({ scores: { a: 0.5, b: { score: '0.25' }, c: 'high' }, total: null, justification: 'j' })).toEqual({ scores: { a: 0.5, b: 0.25 }, total: 0.375, notes: 'j' });
    expect(normalizeVerdict({ criteria_scores: { a: { score: 1 } }, score: 0.6 })).toEqual({ scores: { a: 1 }, total: 0.6, notes: '' });
    // A total that is not a number is no total, even with scores to average.
    expect(normalizeVerdict({ scores: { a: 1 }, total: '0.9' }).total).toBeNull();
    expect(normalizeVerdict({ total: true, notes: 3 })).toEqual({ scores: {}, total: 1, notes: '3' });
  });

  it('the transcript summary shows the prompt, tool calls and results (Python reprs, results cut at 200 characters), not the agent’s text', () => {
    const long = 'é'.repeat(300);
    const summary = transcriptSummary('Do it', response(say('thinking aloud'), call('write', '{"path": "a", "n": 1.0, "ok": true}'), { type: 'function_call_output', call_id: 'c', output: long }));
    const lines = summary.split('\n');
    expect(lines[0]).toBe("User: {'type': 'text', 'text': 'Do it'}");
    expect(lines[1]).toBe('Tool: write({"path": "a", "n": 1.0, "ok": true})');
    expect(lines[2]).toBe(`Result: {'type': 'text', 'text': '${'é'.repeat(200 - "{'type': 'text', 'text': '".length)}`);
    expect(lines).toHaveLength(3);
  });
});

/**
 * 400 generated cases (ICS variants and grading days; todo lists cut, re-shaped, mis-marked, with odd ids and
 * flags, malformed), each scored once by PinchBench's own Python `grade()` of the task (the skill's task files,
 * MIT; run outside the repository, whose code it may not carry): the expectations are PinchBench's, not Gymflow's.
 */
describe("automated checks against PinchBench's own graders", () => {
  const cases = readJsonl(path.join(PACKAGE_ROOT, 'tests/environments/pinchbench.cases.jsonl'));
  it('agree on every criterion and mean, 200 calendar and 200 todo cases', () => {
    expect(cases.filter((c) => c.task === 'task_calendar')).toHaveLength(200);
    expect(cases.filter((c) => c.task === 'task_todo_list_cleanup')).toHaveLength(200);
    const disagreements = cases.flatMap((c, line) => {
      const scores = GRADERS[c.task]!({ files: new Map(Object.entries(c.files)), response: response(), today: new Date(`${c.today}T00:00:00Z`) });
      const mean = averageScores(scores);
      const same =
        Object.keys(scores).length === Object.keys(c.expected.scores).length && Object.entries(c.expected.scores).every(([k, v]) => scores[k] === v) && Math.abs(mean - c.expected.mean) < 1e-12;
      return same ? [] : [{ line: line + 1, task: c.task, scores, expected: c.expected }];
    });
    expect(disagreements).toEqual([]);
    // The cases reach every band: not all full marks, not all zero.
    const means = new Set(cases.map((c) => c.expected.mean));
    expect(means.size).toBeGreaterThan(10);
  });
});

describe("OpenClaw's edit", () => {
  it('applies non-overlapping unique replacements against the original, refusing all of them otherwise', () => {
    expect(applyEdits('abc abc', [{ oldText: 'abc', newText: 'x' }])).toBeUndefined();
    expect(
      applyEdits('a b c', [
        { oldText: 'c', newText: 'C' },
        { oldText: 'a', newText: 'A' },
      ]),
    ).toBe('A b C');
    expect(
      applyEdits('abcd', [
        { oldText: 'abc', newText: '1' },
        { oldText: 'cd', newText: '2' },
      ]),
    ).toBeUndefined();
    expect(
      applyEdits('abcd', [
        { oldText: 'zz', newText: '1' },
        { oldText: 'a', newText: '2' },
      ]),
    ).toBeUndefined();
    expect(applyEdits('abcd', [{ oldText: '', newText: '1' }])).toBeUndefined();
  });
});
