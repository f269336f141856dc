// What every model backend offers the gateway's routes: the two OpenAI create calls, already
// validated at the edge, answered with OpenAI-shaped objects (or a thrown GatewayError).
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { CallRouting } from '../../schemas/records';
import type { AnswerDelta } from '../deltas';
import type { ResponseObject } from '../../schemas/responses';
import { GatewayError } from '../errors';
import type { ModelSpec } from '../spec';
import type { ChatCompletion, ChatCompletionRequest, ResponsesRequest } from '../wire';

export type { CallRouting };

export interface CallContext {
  /** The registered model name the caller asked for. */
  model: string;
  /** From `x-gymflow-rollout-id`: ties the call to a rollout (and seeds the mock). */
  rolloutId?: string;
  /** What keeps a rollout on one replica: the rollout-scoped URL's id, else the rollout id. */
  session?: string;
  log: Logger;
  /** Aborted when the caller disconnects (or its in-process signal fires), so abandoned calls stop waiting on upstreams. */
  signal: AbortSignal;
  /** The run folder the call belongs to (a rollout-scoped URL's, or the in-process caller's): where routing conditions are recorded. */
  runDir?: string;
  /** The task row the rollout plays (in-process callers): what the `rules` routing strategy reads. */
  task?: Record<string, unknown>;
  /**
   * Set when the caller streams: a backend that streams from its upstream passes each piece on as it
   * arrives (the caller sees it at once), and still answers with the whole, assembled answer.
   */
  onDelta?(delta: AnswerDelta): void;
  /** A routing backend says here which target served the call; the gateway keeps it in the call's record. */
  served?(routing: CallRouting): void;
}

export interface Backend {
  readonly kind: ModelSpec['backend'];
  /**
   * Takes a Responses request's namespace and hosted tools (wire.ts `HostedTool`) as they are: an
   * upstream Responses API. A backend without it gets the request with those tools left out.
   */
  readonly hostedTools?: boolean;
  /** A backend with `hostedTools` finds them in `request.tools` too (typed as the tools it plays). */
  responses(request: ResponsesRequest, ctx: CallContext): Promise<ResponseObject>;
  chatCompletions(request: ChatCompletionRequest, ctx: CallContext): Promise<ChatCompletion>;
  /** Releases connections when the gateway closes; backends that hold none leave it out. */
  close?(): Promise<void>;
}

/** An upstream's answer checked against the shape it must have, or a 502 naming the first bad field. */
export function validUpstreamReply<T extends z.ZodType>(schema: T, reply: unknown, upstream: string, what: string): z.infer<T> {
  const parsed = schema.safeParse(reply);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new GatewayError(502, 'upstream_error', 'invalid_upstream_response', `${upstream} returned an invalid ${what}: ${issue.path.join('.') || '(body)'}: ${issue.message}`);
}
