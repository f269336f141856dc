// What every model backend offers the gateway's routes: the two OpenAI create calls, already
// validated at the edge, answered with OpenAI-shaped objects (or a thrown GymError).
import type { Logger } from 'pino';
import type { ResponseObject } from '../../schemas/responses';
import type { ModelSpec } from '../spec';
import type { ChatCompletion, ChatCompletionRequest, ResponsesRequest } from '../wire';

export interface CallContext {
  /** The registered model name the caller asked for. */
  model: string;
  /** From `x-gymflow-rollout-id`: ties the call to a rollout (and seeds the mock). */
  rolloutId?: string;
  log: Logger;
  /** Aborted when the caller disconnects (or its in-process signal fires), so abandoned calls stop waiting on upstreams. */
  signal: AbortSignal;
}

export interface Backend {
  readonly kind: ModelSpec['backend'];
  responses(request: ResponsesRequest, ctx: CallContext): Promise<ResponseObject>;
  chatCompletions(request: ChatCompletionRequest, ctx: CallContext): Promise<ChatCompletion>;
  /** Releases connections when the gateway closes; backends that hold none leave it out. */
  close?(): Promise<void>;
}
