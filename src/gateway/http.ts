// The HTTP edge: read a JSON body, validate it with zod (naming the offending field), send JSON.
// Only `application/json` is read: it is the one body type a web page cannot send without asking first.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { GatewayError } from './errors';

/** Large enough for long multi-turn transcripts with inline images. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new GatewayError(415, 'invalid_request_error', 'unsupported_media_type', `send the request body as content-type application/json, not ${type || 'no content type'}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new GatewayError(413, 'invalid_request_error', 'body_too_large', `request body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (e) {
    throw new GatewayError(400, 'invalid_request_error', 'invalid_json', `request body is not JSON: ${(e as Error).message}`);
  }
}

/** `['input', 0, 'role']` → `input[0].role`, the way OpenAI's `param` names fields. */
function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

type Issue = z.core.$ZodIssue;

/**
 * The issue to report for a failed union: the branch the value was evidently meant for (its own
 * shape, not a top-level type or `type` tag mismatch), with the fewest problems. Without this, a
 * bad conversation item would be reported as just "Invalid input" at the item.
 */
function mostSpecific(issue: Issue, base: readonly PropertyKey[] = []): { path: PropertyKey[]; message: string } {
  const path = [...base, ...issue.path];
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return { path, message: issue.message };
  const mismatched = (branch: Issue[]) => branch.some((i) => (i.code === 'invalid_type' && i.path.length === 0) || (i.code === 'invalid_value' && i.path.length === 1 && i.path[0] === 'type'));
  const candidates = issue.errors.filter((branch) => branch.length > 0 && !mismatched(branch));
  if (candidates.length === 0) {
    const expected = issue.errors.flatMap((branch) => branch.flatMap((i) => (i.code === 'invalid_type' ? [i.expected] : [])));
    return { path, message: expected.length > 0 ? `Invalid input: expected ${[...new Set(expected)].join(' or ')}` : issue.message };
  }
  const best = candidates.reduce((a, b) => (b.length < a.length ? b : a));
  return mostSpecific(best[0]!, path);
}

/** The parsed body, or a 400 whose message and `param` name the first bad field. */
export function validateBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const { path, message } = mostSpecific(parsed.error.issues[0]!);
  const field = fieldPath(path);
  throw new GatewayError(400, 'invalid_request_error', 'invalid_body', `invalid request body: ${field || '(body)'}: ${message}`, field || null);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
