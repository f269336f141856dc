// The rollout → task join: by _ng_task_index when that task starts the same conversation, else by
// identical input (however the recording spells it), else a rollout that is a whole task itself.
import { describe, expect, it } from 'vitest';
import { inputKey, joinRollouts, type NumberedRow, type Row } from '../../src/reverify';

const numbered = (rows: Row[], first = 1): NumberedRow[] => rows.map((row, i) => ({ line: first + i, row }));
const task = (content: string, extra: Row = {}): Row => ({ responses_create_params: { input: [{ role: 'user', content }] }, ...extra });
const never = () => false;

describe('inputKey', () => {
  it('reads a string input as one user message', () => {
    expect(inputKey({ responses_create_params: { input: 'hi' } })).toBe(inputKey(task('hi')));
  });

  it("ignores a recording's type, ids, statuses and null fields", () => {
    const recorded = { responses_create_params: { input: [{ type: 'message', id: null, status: 'completed', role: 'user', content: 'hi' }], temperature: null } };
    expect(inputKey(recorded)).toBe(inputKey(task('hi')));
    const parts = (extra: Row) => ({ responses_create_params: { input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi', ...extra }] }] } });
    expect(inputKey(parts({ annotations: null }))).toBe(inputKey(parts({})));
  });

  it('tells apart different roles, contents and item order', () => {
    const two = (a: string, b: string) => ({
      responses_create_params: {
        input: [
          { role: 'system', content: a },
          { role: 'user', content: b },
        ],
      },
    });
    expect(inputKey(two('a', 'b'))).not.toBe(inputKey(two('b', 'a')));
    expect(inputKey({ responses_create_params: { input: [{ role: 'system', content: 'hi' }] } })).not.toBe(inputKey(task('hi')));
  });

  it('is undefined without an input', () => {
    expect(inputKey({})).toBeUndefined();
    expect(inputKey({ responses_create_params: { input: 3 } })).toBeUndefined();
  });
});

describe('joinRollouts', () => {
  const tasks = numbered([task('q0', { answer: 'A' }), task('q1', { answer: 'B' }), task('q2', { answer: 'C' })]);

  it('joins by _ng_task_index when that task has the same input', () => {
    const { joined, unjoined } = joinRollouts(numbered([task('q2', { _ng_task_index: 2 })]), tasks, never);
    expect(unjoined).toEqual([]);
    expect(joined).toMatchObject([{ line: 1, taskIndex: 2, by: 'index', task: { answer: 'C' } }]);
  });

  it('joins by identical input, whatever the order of the files', () => {
    const { joined } = joinRollouts(numbered([task('q1'), task('q0')]), tasks, never);
    expect(joined.map((j) => [j.line, j.taskIndex, j.by])).toEqual([
      [1, 1, 'input'],
      [2, 0, 'input'],
    ]);
  });

  it('falls back to the input when _ng_task_index names a task with another input', () => {
    // A Gymflow run keeps the index a NeMo Gym input file gave its rows, which need not be their position.
    const { joined } = joinRollouts(numbered([task('q0', { _ng_task_index: 7 }), task('q1', { _ng_task_index: 0 })]), tasks, never);
    expect(joined.map((j) => [j.taskIndex, j.by])).toEqual([
      [0, 'input'],
      [1, 'input'],
    ]);
  });

  it('reports every unjoinable rollout with its line and why', () => {
    const rollouts = numbered([task('q0'), task('nope', { _ng_task_index: 1 }), task('gone', { _ng_task_index: 9 }), { response: {} }], 3);
    const { joined, unjoined } = joinRollouts(rollouts, tasks, never);
    expect(joined.map((j) => j.line)).toEqual([3]);
    expect(unjoined).toEqual([
      { line: 4, reason: 'its _ng_task_index 1 names the task on line 2, whose input differs, and no task has the same input' },
      { line: 5, reason: 'its _ng_task_index 9 is past the last task (3 rows), and no task has the same input' },
      { line: 6, reason: 'it has no responses_create_params.input' },
    ]);
  });

  it('refuses to guess between different tasks sharing an input, but accepts exact duplicates', () => {
    const twins = numbered([task('q', { answer: 'A' }), task('q', { answer: 'B' })]);
    expect(joinRollouts(numbered([task('q')]), twins, never).unjoined[0]!.reason).toMatch(/matches 2 different tasks \(lines 1, 2\)/);
    const copies = numbered([task('q', { answer: 'A' }), task('q', { answer: 'A' })]);
    expect(joinRollouts(numbered([task('q')]), copies, never).joined[0]!.taskIndex).toBe(0);
  });

  it('without a tasks file, a rollout that is a whole task is its own task, without what verify added', () => {
    const isTask = (row: Row) => 'answer' in row && !('reward' in row);
    const rollouts = numbered([task('q', { answer: 'A', reward: 1, response: { output: [] }, _ng_task_index: 4 }), task('q')]);
    const { joined, unjoined } = joinRollouts(rollouts, undefined, isTask);
    expect(joined).toEqual([{ line: 1, rollout: rollouts[0]!.row, task: task('q', { answer: 'A', _ng_task_index: 4 }), taskIndex: 4, by: 'self' }]);
    expect(unjoined).toEqual([{ line: 2, reason: expect.stringContaining('no tasks file was given (--tasks)') }]);
  });
});
