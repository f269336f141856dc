// The automated checks of the PinchBench tasks Gymflow ships, written from each task's grading criteria and
// its `grade(transcript, workspace_path)` (github.com/pinchbench/skill, MIT): a score in [0, 1] per criterion,
// whose mean is the task's automated score.
import { jsonLoadsPlain } from '../../python/json';
import type { ResponseObject } from '../../schemas/responses';

export interface GradeInput {
  files: ReadonlyMap<string, string>;
  response: ResponseObject;
  /** The day the task is graded on (PinchBench: the grader's `datetime.now()`). */
  today: Date;
}

export type Scores = Record<string, number>;
export type Grader = (input: GradeInput) => Scores;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether any assistant message says something (not only whitespace). */
function agentResponded(response: ResponseObject): boolean {
  for (const item of response.output as { type?: string; role?: string; content?: unknown }[]) {
    if (item.type !== 'message' || item.role !== 'assistant' || !Array.isArray(item.content)) continue;
    for (const part of item.content as { text?: unknown }[]) if (typeof part?.text === 'string' && part.text.trim()) return true;
  }
  return false;
}

const sanity: Grader = ({ response }) => ({ agent_responded: agentResponded(response) ? 1 : 0 });

/** `YYYYMMDD` of the next Tuesday after `today` (a week on when today is a Tuesday). */
export function nextTuesday(today: Date): string {
  const weekday = (today.getUTCDay() + 6) % 7; // Python's weekday(): Monday is 0
  let ahead = (1 - weekday + 7) % 7;
  if (ahead === 0) ahead = 7;
  const d = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + ahead));
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
}

const CALENDAR_KEYS = ['file_created', 'date_correct', 'time_correct', 'attendee_present', 'title_correct', 'description_present'];

const calendar: Grader = ({ files, today }) => {
  // Only .ics files at the top of the workspace count; the first by name when there are several.
  const ics = [...files.keys()].filter((f) => !f.includes('/') && f.endsWith('.ics')).sort();
  if (!ics.length) return Object.fromEntries(CALENDAR_KEYS.map((k) => [k, 0]));
  // Python reads text with universal newlines.
  const content = files.get(ics[0]!)!.replace(/\r\n?/g, '\n');
  return {
    file_created: 1,
    attendee_present: /ATTENDEE.*john@example\.com/i.test(content) ? 1 : 0,
    title_correct: /SUMMARY.*Project Sync/i.test(content) ? 1 : 0,
    description_present: /DESCRIPTION.*roadmap/i.test(content) ? 1 : 0,
    time_correct: /DTSTART.*T1500\d{2}/.test(content) ? 1 : 0,
    date_correct: content.includes(nextTuesday(today)) ? 1 : 0,
  };
};

const TODO_KEYS = [
  'file_created',
  'all_items_present',
  'duplicates_marked_partial',
  'duplicates_marked_all',
  'no_false_completions',
  'overdue_flagged',
  'overdue_not_over_flagged',
  'organized_by_project',
];
const DUPLICATES = [4, 7, 10, 13];
const CANONICAL = [1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15];
const OVERDUE = [1, 2, 3, 6, 8, 9, 12, 14];
const NOT_OVERDUE = [4, 7, 10, 13, 5, 11, 15];

/** A todo id as a Python dict key: true and 1 are the same key, "1" is another. */
const idKey = (id: unknown) => (typeof id === 'boolean' ? `n:${Number(id)}` : typeof id === 'number' ? `n:${id}` : `${typeof id}:${JSON.stringify(id)}`);

/** Steps of a banded score: the first band whose floor `count` reaches. */
const band = (count: number, bands: [number, number][]) => bands.find(([floor]) => count >= floor)?.[1] ?? 0;

const todoListCleanup: Grader = ({ files }) => {
  const zero = (created: number) => ({ ...Object.fromEntries(TODO_KEYS.map((k) => [k, 0])), file_created: created });
  const text = files.get('todos_cleaned.json');
  if (text === undefined) return zero(0);
  let data: unknown;
  try {
    // Python's json.loads (NaN and Infinity parse; a malformed file scores only file_created).
    data = jsonLoadsPlain(text);
  } catch {
    return zero(1);
  }
  const scores: Scores = { file_created: 1 };
  let items: unknown[] = [];
  if (isRecord(data) && 'projects' in data) {
    scores.organized_by_project = 1;
    // A `projects` that is not an object is a grader error upstream (AttributeError): nothing is counted here.
    if (isRecord(data.projects)) for (const group of Object.values(data.projects)) if (Array.isArray(group)) items.push(...group);
  } else if (isRecord(data) && 'todos' in data) {
    scores.organized_by_project = 0;
    items = Array.isArray(data.todos) ? data.todos : [];
  } else {
    scores.organized_by_project = 0;
    if (Array.isArray(data)) items = data;
  }
  const byId = new Map<string, Record<string, unknown>>();
  for (const item of items) if (isRecord(item) && 'id' in item) byId.set(idKey(item.id), item);
  const get = (id: number) => byId.get(idKey(id));
  scores.all_items_present = band(byId.size, [
    [15, 1],
    [13, 0.75],
    [10, 0.5],
    [5, 0.25],
  ]);
  const completed = DUPLICATES.filter((id) => get(id)?.status === 'completed').length;
  scores.duplicates_marked_partial = band(completed, [
    [3, 1],
    [2, 0.75],
    [1, 0.5],
  ]);
  scores.duplicates_marked_all = completed === 4 ? 1 : 0;
  const falseCompletions = CANONICAL.filter((id) => get(id)?.status === 'completed').length;
  scores.no_false_completions = falseCompletions === 0 ? 1 : falseCompletions <= 1 ? 0.5 : 0;
  const flagged = OVERDUE.filter((id) => get(id)?.overdue === true).length;
  scores.overdue_flagged = band(flagged, [
    [7, 1],
    [5, 0.75],
    [3, 0.5],
    [1, 0.25],
  ]);
  const falseOverdue = NOT_OVERDUE.filter((id) => get(id)?.overdue === true).length;
  scores.overdue_not_over_flagged = falseOverdue === 0 ? 1 : falseOverdue <= 1 ? 0.5 : 0;
  return scores;
};

/** Automated checks by task id; llm_judge tasks have none. */
export const GRADERS: Readonly<Record<string, Grader>> = {
  task_sanity: sanity,
  task_calendar: calendar,
  task_todo_list_cleanup: todoListCleanup,
};

/** PinchBench's `_average_scores`: the mean of the criteria's scores, 0 when there are none. */
export function averageScores(scores: Scores): number {
  const values = Object.values(scores).filter((v) => typeof v === 'number');
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}
