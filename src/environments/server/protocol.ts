// The parts of NeMo Gym's resources-server protocol that both ends (our server, our remote client)
// need: which routes are not tools, what a tool may be called, the rollout prefix, cookie headers.

/** Routes every resources server has; a tool with one of these names could never be reached. */
export const RESERVED_ROUTES: readonly string[] = ['seed_session', 'verify', 'aggregate_metrics', 'reverify_mode'];

/** OpenAI's rule for function names, which is also what keeps a tool name a single path segment. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Why `name` cannot be a tool route, or undefined when it can. */
export function toolNameProblem(name: string): string | undefined {
  if (RESERVED_ROUTES.includes(name)) return `"${name}" is a resources-server route, not a tool`;
  if (!TOOL_NAME.test(name)) return `"${name}" is not a valid tool name (letters, digits, _ and -, at most 64)`;
  return undefined;
}

const ROLLOUT_PREFIX = /^\/ng-rollout\/([^/]+)(\/.*)?$/;

/**
 * NeMo Gym's RolloutContextMiddleware: `/ng-rollout/<id>/verify` is `/verify` for rollout `<id>`, so
 * a caller can tag every request with its rollout without the server knowing about it.
 */
export function stripRolloutPrefix(path: string): { path: string; rolloutId?: string } {
  const match = ROLLOUT_PREFIX.exec(path);
  if (!match) return { path };
  return { path: match[2] || '/', rolloutId: match[1]! };
}

/** The `name=value` pairs of a `Cookie` header (or of a `Set-Cookie` header's first segment). */
export function cookiePairs(header: string): [string, string][] {
  return header.split(';').flatMap((pair): [string, string][] => {
    const eq = pair.indexOf('=');
    return eq > 0 ? [[pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()]] : [];
  });
}
