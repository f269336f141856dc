// The API's bearer token: read once from a file or a named environment variable, and compared in constant
// time (over sha256 digests, so the comparison does not even reveal the token's length).
import { hash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GymError } from '../errors';

/** The token from `--token-file` (its first line) or `--token-env` (the variable's value); exactly one must be given. */
export function loadToken(opts: { tokenFile?: string; tokenEnv?: string }, env: NodeJS.ProcessEnv = process.env): string {
  if ((opts.tokenFile === undefined) === (opts.tokenEnv === undefined)) {
    throw new GymError('BAD_FLAG', 'gym api serve needs the bearer token clients must send: --token-file FILE or --token-env VARIABLE (one of them)');
  }
  let token: string;
  if (opts.tokenFile !== undefined) {
    try {
      token = readFileSync(opts.tokenFile, 'utf8').split(/\r?\n/)[0]!.trim();
    } catch (e) {
      throw new GymError('BAD_FLAG', `--token-file ${opts.tokenFile}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    if (!token) throw new GymError('BAD_FLAG', `--token-file ${opts.tokenFile} is empty; put the token on its first line`);
  } else {
    token = (env[opts.tokenEnv!] ?? '').trim();
    if (!token) throw new GymError('BAD_FLAG', `--token-env ${opts.tokenEnv}: the variable ${opts.tokenEnv} is not set or empty`);
  }
  if (token.length < 16) throw new GymError('BAD_FLAG', 'the API token must have at least 16 characters');
  return token;
}

// One-shot: a Hash object per request cost more than the rest of the check.
const digest = (s: string) => hash('sha256', s, 'buffer');

/** A checker of `Authorization` headers against the token. */
export function bearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
    // A missing header is compared too, against a digest that cannot match, so every refusal costs the same.
    return timingSafeEqual(digest(match?.[1]?.trim() ?? ''), expected) && match !== null;
  };
}
