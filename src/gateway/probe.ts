// Whether a run's model endpoints answer before the run starts (`gym eval run --dry-run`, and a run from
// a NeMo Gym configuration): as NeMo Gym checks, any HTTP response, even 401 or 404, means one is listening.
import { readFileSync } from 'node:fs';
import type { ModelSpec, TargetModelSpec } from './spec';

export interface Endpoint {
  /** What the endpoint is for: "model", "judge model". */
  readonly role: string;
  readonly url: string;
}

const DEFAULT_BASE: Record<string, string> = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com/v1' };

/** Every base URL a spec may call (all replicas, the endpoint file's current lines); none for the mock. */
export function endpointsOf(role: string, spec: ModelSpec | TargetModelSpec | undefined): Endpoint[] {
  if (!spec || spec.backend === 'mock') return [];
  if (spec.backend === 'routed') return Object.entries(spec.targets).flatMap(([name, target]) => endpointsOf(`${role} target ${name}`, target));
  // A hosted Switchyard proxy starts with the gateway; what it calls is its deployment's business.
  if (spec.backend === 'switchyard' && spec.base_url === undefined) return [];
  const urls = [spec.base_url ?? []].flat();
  if (spec.endpoint_file) {
    try {
      urls.push(
        ...readFileSync(spec.endpoint_file, 'utf8')
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean),
      );
    } catch (e) {
      return [{ role: `${role} (endpoint_file ${spec.endpoint_file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, url: '' }];
    }
  }
  if (urls.length === 0 && DEFAULT_BASE[spec.backend]) urls.push(DEFAULT_BASE[spec.backend]!);
  return urls.map((url) => ({ role, url }));
}

const POLL_MS = 500;

/** Asks each endpoint's `/models` until it answers or `timeoutMs` has passed; returns those that never did, with why. */
export async function unreachableEndpoints(endpoints: readonly Endpoint[], timeoutMs: number): Promise<{ endpoint: Endpoint; reason: string }[]> {
  const deadline = Date.now() + timeoutMs;
  const results = await Promise.all(
    endpoints.map(async (endpoint) => {
      if (!endpoint.url) return { endpoint, reason: 'no URL' };
      let reason = 'no answer';
      do {
        const left = Math.max(1, deadline - Date.now());
        try {
          await fetch(`${endpoint.url.replace(/\/+$/, '')}/models`, { signal: AbortSignal.timeout(Math.min(left, 10_000)) }).then((r) => r.body?.cancel());
          return undefined;
        } catch (e) {
          const cause = (e as { cause?: { code?: string; message?: string } }).cause;
          reason = cause?.code ?? cause?.message ?? (e as Error).message;
        }
        if (Date.now() + POLL_MS >= deadline) break;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      } while (Date.now() < deadline);
      return { endpoint, reason };
    }),
  );
  return results.filter((r): r is { endpoint: Endpoint; reason: string } => r !== undefined);
}
