// PinchBench's LLM judge (scripts/lib_grading.py of github.com/pinchbench/skill, MIT): the judge is shown the
// task, its expected behaviour, a summary of the agent's tool calls and results, and the rubric, and answers
// one JSON object of per-criterion scores and a total. Its reply is read as PinchBench reads it: a ```json
// block, else the last balanced {...} that parses (one with "scores" first), else a "total: 0.x" in prose.
import { jsonDumps, jsonLoads, jsonLoadsPlain } from '../../python/json';
import { pyRepr, pyStr } from '../../python/values';
import type { ResponseObject } from '../../schemas/responses';
import { askJudge, judgeMessage } from '../equivalence_llm_judge/judge';
import type { VerifyContext } from '../types';
import type { Scores } from './graders';
import type { TaskDefinition } from './tasks';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Python's isinstance(v, (int, float)): a bool is an int. */
const isNumber = (v: unknown): v is number | boolean => typeof v === 'number' || typeof v === 'boolean';
/** Python's `s[:n]` (code points, not UTF-16 units). */
const head = (s: string, n: number) => Array.from(s).slice(0, n).join('');

/** `json.dumps(arguments)` of a call's arguments (ensure_ascii, Python's separators), key order kept. */
function dumpArguments(raw: unknown): string {
  if (typeof raw !== 'string') return jsonDumps(raw ?? {});
  try {
    return jsonDumps(jsonLoads(raw), { numbersAreFloats: true });
  } catch {
    // OpenClaw keeps unparsed arguments as their text.
    return jsonDumps(raw);
  }
}

/**
 * PinchBench's `_summarize_transcript` over the episode: the user's prompt, each tool call, and each tool
 * result's first text part (its Python repr, cut at 200 characters). The agent's own text is not shown.
 */
export function transcriptSummary(prompt: string, response: ResponseObject): string {
  const parts = [`User: ${pyRepr({ type: 'text', text: prompt })}`];
  for (const item of response.output as { type?: string; name?: unknown; arguments?: unknown; output?: unknown }[]) {
    if (item.type === 'function_call') parts.push(`Tool: ${pyStr(item.name ?? null)}(${dumpArguments(item.arguments)})`);
    else if (item.type === 'function_call_output') {
      const output = typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? '');
      if (output) parts.push(`Result: ${head(pyRepr({ type: 'text', text: output }), 200)}`);
    }
  }
  return parts.join('\n');
}

/** PinchBench's rubric: the task's judge rubric, else its grading criteria as a list. */
export function rubricOf(def: TaskDefinition): string {
  return def.llm_judge_rubric || def.grading_criteria.map((c) => `- ${c}`).join('\n');
}

/** PinchBench's judge prompt, word for word (its wording, MIT). */
export function judgePrompt(def: TaskDefinition, summary: string): string {
  return (
    'You are a grading function. Your ONLY job is to output a single JSON object.\n\n' +
    'CRITICAL RULES:\n' +
    '- Do NOT use any tools (no Read, Write, exec, or any other tool calls)\n' +
    '- Do NOT create files or run commands\n' +
    '- Do NOT write any prose, explanation, or commentary outside the JSON\n' +
    '- Respond with ONLY a JSON object — nothing else\n\n' +
    'Be a strict evaluator. Reserve 1.0 for genuinely excellent performance. ' +
    'An average acceptable completion should score around 0.6-0.7. ' +
    'Deduct points for unnecessary steps, verbose output, and inefficient tool usage.\n\n' +
    '## Task\n' +
    `${def.prompt}\n\n` +
    '## Expected Behavior\n' +
    `${def.expected_behavior}\n\n` +
    '## Agent Transcript (summarized)\n' +
    `${summary}\n\n` +
    '## Grading Rubric\n' +
    `${rubricOf(def)}\n\n` +
    'Score each criterion from 0.0 to 1.0.\n\n' +
    'Respond with ONLY this JSON structure (no markdown, no code fences, no extra text):\n' +
    '{"scores": {"criterion_name": 0.0}, "total": 0.0, "notes": "brief justification"}'
  );
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v = jsonLoadsPlain(text);
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** PinchBench's `_parse_judge_response` on the judge's reply text; `{}` when nothing in it can be read. */
export function parseJudgeReply(reply: string): Record<string, unknown> {
  const raw = reply.trim();
  if (!raw) return {};
  const block = /```json\s*([\s\S]*?)\s*```/.exec(raw);
  if (block) {
    const parsed = parseObject(block[1]!);
    if (parsed) return parsed;
  }
  // Balanced-brace chunks, scanned as PinchBench scans them (a stray "}" drives the depth below zero).
  const candidates: string[] = [];
  let depth = 0;
  let current: string[] = [];
  for (const ch of raw) {
    if (ch === '{') {
      if (depth === 0) current = [];
      depth++;
    }
    if (depth > 0) current.push(ch);
    if (ch === '}') {
      depth--;
      if (depth === 0 && current.length) candidates.push(current.join(''));
    }
  }
  const parsed = candidates.map(parseObject).reverse();
  const withScores = parsed.find((p) => p && 'scores' in p);
  if (withScores) return withScores;
  const any = parsed.find((p) => p !== undefined);
  if (any) return any;
  const prose = /(?:total|overall|final)\s*(?:score)?[:\s]*(0\.\d+|1\.0+)/i.exec(raw);
  if (prose) {
    const total = Number(prose[1]);
    if (total >= 0 && total <= 1) return { scores: {}, total, notes: 'Score extracted from prose (JSON parse failed)' };
  }
  return {};
}

export interface JudgeVerdict {
  scores: Scores;
  total: number | null;
  notes: string;
}

/** `float(x)` of a JSON value, or undefined where Python's float() would raise. */
function toFloat(v: unknown): number | undefined {
  if (isNumber(v)) return Number(v);
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) return Number(t);
    if (/^[+-]?(inf|infinity)$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(t)) return NaN;
  }
  return undefined;
}

/** PinchBench's `_normalize_judge_response` then `_normalize_score_dict`: per-criterion scores, a total, notes. */
export function normalizeVerdict(parsed: Record<string, unknown>): JudgeVerdict {
  const scores: Record<string, unknown> = {};
  const collect = (source: unknown, convert: boolean) => {
    if (!isRecord(source)) return;
    for (const [key, value] of Object.entries(source)) {
      if (isRecord(value) && 'score' in value) scores[key] = convert && (isNumber(value.score) || typeof value.score === 'string') ? toFloat(value.score) : value.score;
      else if (isNumber(value)) scores[key] = value;
    }
  };
  if ('scores' in parsed) collect(parsed.scores, true);
  else if ('criteria_scores' in parsed) collect(parsed.criteria_scores, false);
  let total: number | null = null;
  if ('total' in parsed && parsed.total !== null) total = isNumber(parsed.total) ? Number(parsed.total) : null;
  else if ('score' in parsed && isNumber(parsed.score)) total = Number(parsed.score);
  else if (Object.keys(scores).length) {
    const values = Object.values(scores).filter(isNumber).map(Number);
    if (values.length) total = values.reduce((a, b) => a + b, 0) / values.length;
  }
  const notes = 'notes' in parsed ? pyStr(parsed.notes) : 'justification' in parsed ? pyStr(parsed.justification) : 'reasoning' in parsed ? pyStr(parsed.reasoning) : '';
  const breakdown: Scores = {};
  for (const [key, value] of Object.entries(scores)) {
    const f = toFloat(value);
    if (f !== undefined) breakdown[key] = f;
  }
  return { scores: breakdown, total, notes };
}

/** The text of the judge's assistant messages, joined by newlines, as PinchBench collects it. */
export function replyText(response: ResponseObject): string {
  const chunks: string[] = [];
  for (const item of response.output as { type?: string; role?: string; content?: unknown }[]) {
    if (item.type !== 'message' || item.role !== 'assistant' || !Array.isArray(item.content)) continue;
    for (const part of item.content as { type?: string; text?: unknown }[]) if (typeof part?.text === 'string') chunks.push(part.text);
  }
  return chunks.join('\n');
}

export interface JudgeGrade extends JudgeVerdict {
  prompt: string;
  reply: string;
}

/** One judge call with PinchBench's prompt; a reply with no score is a 0, as PinchBench scores it. */
export async function judgeTask(ctx: VerifyContext<unknown>, def: TaskDefinition, response: ResponseObject): Promise<JudgeGrade> {
  const prompt = judgePrompt(def, transcriptSummary(def.prompt, response));
  const reply = replyText(await askJudge(ctx, { input: [judgeMessage('user', prompt)] }));
  return { ...normalizeVerdict(parseJudgeReply(reply)), prompt, reply };
}
