// A model call's token ids and log-probs, found where the call log keeps them and checked as one
// bundle: all three arrays or none, integer ids, finite log-probs, one log-prob per generated token.

export interface TokenBundle {
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_log_probs: number[];
}

export type BundleResult = { kind: 'ok'; bundle: TokenBundle } | { kind: 'none' } | { kind: 'bad'; detail: string };

const FIELDS = ['prompt_token_ids', 'generation_token_ids', 'generation_log_probs'] as const;

function carries(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && FIELDS.some((f) => (value as Record<string, unknown>)[f] != null);
}

/** The first element that is not a token id (a non-negative safe integer), or -1. */
function badId(values: unknown[]): number {
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0) return i;
  }
  return -1;
}

function badLogProb(values: unknown[]): number {
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    // A log-prob is at most 0; a tiny positive value is float noise some engines return.
    if (typeof x !== 'number' || !Number.isFinite(x) || x > 1e-6) return i;
  }
  return -1;
}

/** Checks one carrier of token fields as a bundle; `where` names it in the problem found. */
export function checkBundle(carrier: Record<string, unknown>, where: string): BundleResult {
  const missing = FIELDS.filter((f) => carrier[f] == null);
  if (missing.length) return { kind: 'bad', detail: `${where} has ${FIELDS.filter((f) => !missing.includes(f)).join(', ')} but no ${missing.join(', ')}` };
  for (const f of FIELDS) if (!Array.isArray(carrier[f])) return { kind: 'bad', detail: `${where}.${f} is not an array` };
  const [prompt, generation, logProbs] = FIELDS.map((f) => carrier[f] as unknown[]) as [unknown[], unknown[], unknown[]];
  for (const [field, values] of [
    ['prompt_token_ids', prompt],
    ['generation_token_ids', generation],
  ] as const) {
    const at = badId(values);
    if (at >= 0) return { kind: 'bad', detail: `${where}.${field}[${at}] is ${JSON.stringify(values[at]) ?? 'undefined'}, not a token id` };
  }
  const at = badLogProb(logProbs);
  if (at >= 0) return { kind: 'bad', detail: `${where}.generation_log_probs[${at}] is ${JSON.stringify(logProbs[at]) ?? 'undefined'}, not a finite log-prob` };
  if (logProbs.length !== generation.length) {
    return { kind: 'bad', detail: `${where} has ${generation.length} generation_token_ids but ${logProbs.length} generation_log_probs` };
  }
  return { kind: 'ok', bundle: { prompt_token_ids: prompt as number[], generation_token_ids: generation as number[], generation_log_probs: logProbs as number[] } };
}

/**
 * The token bundle of a logged call: its `tokens` field (the gateway's, whatever the route), else the one
 * output item or chat message of its answer that carries token fields. Two carriers in one answer are an
 * error, as in NeMo Gym's capture: which generation they describe cannot be told.
 */
export function callTokens(call: { tokens?: unknown; response?: unknown }): BundleResult {
  if (call.tokens != null) {
    if (typeof call.tokens !== 'object') return { kind: 'bad', detail: 'tokens is not an object' };
    return checkBundle(call.tokens as Record<string, unknown>, 'tokens');
  }
  const response = call.response as { output?: unknown; choices?: { message?: unknown }[] } | undefined;
  const carriers: [Record<string, unknown>, string][] = [];
  if (Array.isArray(response?.output)) response.output.forEach((item, i) => carries(item) && carriers.push([item, `response.output[${i}]`]));
  if (Array.isArray(response?.choices)) response.choices.forEach((c, i) => carries(c?.message) && carriers.push([c.message as Record<string, unknown>, `response.choices[${i}].message`]));
  if (carriers.length > 1) return { kind: 'bad', detail: `${carriers.map(([, w]) => w).join(' and ')} both carry token fields` };
  if (!carriers.length) return { kind: 'none' };
  return checkBundle(...carriers[0]!);
}
