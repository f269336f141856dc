// A model's `sampling_overrides` forced onto a call in the route's own vocabulary, and a rollout's
// remaining generated-token budget as the call's ceiling on max tokens. Pure: request in, request out.
import type { SamplingOverrides } from './spec';

export type RequestShape = 'responses' | 'chat';

/** The field that bounds generated tokens: Responses' one, or whichever of chat's two the caller used. */
function maxTokensField(request: Record<string, unknown>, shape: RequestShape): string {
  if (shape === 'responses') return 'max_output_tokens';
  return request.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens';
}

/** The request with every override set, whatever the caller sent for it. */
export function withOverrides<T extends object>(request: T, overrides: SamplingOverrides | undefined, shape: RequestShape): T {
  if (!overrides) return request;
  const out = { ...request } as Record<string, unknown>;
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (name === 'max_tokens') {
      const field = maxTokensField(out, shape);
      out[field] = value;
      // Chat has two spellings; the other must not contradict the pinned one.
      if (shape === 'chat') delete out[field === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens'];
    } else {
      out[name] = value;
    }
  }
  return out as T;
}

/** The request with its max tokens lowered to `remaining` (set when the caller gave none). */
export function withTokenCeiling<T extends object>(request: T, remaining: number | undefined, shape: RequestShape): T {
  if (remaining === undefined) return request;
  const out = { ...request } as Record<string, unknown>;
  const field = maxTokensField(out, shape);
  const asked = out[field];
  if (typeof asked !== 'number' || asked > remaining) out[field] = remaining;
  return out as T;
}
