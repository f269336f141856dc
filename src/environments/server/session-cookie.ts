// The session cookie of the environment server. As in NeMo Gym (Starlette's signed session cookie),
// the id is signed, so a client can carry its own session but cannot name another client's.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { cookiePairs } from './protocol';

/** The cookie name NeMo Gym's SessionMiddleware uses. */
export const SESSION_COOKIE = 'session';

export interface SessionCookies {
  /** The session id a `Cookie` header carries, or undefined when it has none or its signature is wrong. */
  read(cookieHeader: string | undefined): string | undefined;
  /** The `Set-Cookie` value that hands `id` to the client. */
  setCookie(id: string): string;
  newId(): string;
}

export function sessionCookies(): SessionCookies {
  // A per-process random secret is enough: the sessions live in this process's memory anyway.
  const secret = randomBytes(32);
  const sign = (id: string) => createHmac('sha256', secret).update(id).digest('base64url');
  const valid = (id: string, signature: string) => {
    const expected = Buffer.from(sign(id));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  return {
    read(cookieHeader) {
      for (const [name, value] of cookiePairs(cookieHeader ?? '')) {
        const dot = value.lastIndexOf('.');
        if (name === SESSION_COOKIE && dot > 0 && valid(value.slice(0, dot), value.slice(dot + 1))) return value.slice(0, dot);
      }
      return undefined;
    },
    setCookie: (id) => `${SESSION_COOKIE}=${id}.${sign(id)}; Path=/; HttpOnly; SameSite=Lax`,
    newId: () => randomUUID(),
  };
}
