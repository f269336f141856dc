// The API token: where it may come from, what is refused at start, and which Authorization headers pass.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bearerCheck, loadToken } from '../../src/api/auth';
import { GymError } from '../../src/errors';
import { tempDir } from '../helpers/run';

const TOKEN = 'a-token-of-enough-length';

function refusal(f: () => unknown): GymError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(GymError);
    return e as GymError;
  }
  throw new Error('expected a refusal');
}

describe('loadToken', () => {
  it('reads the first line of --token-file, or the variable --token-env names', async () => {
    const file = path.join(await tempDir('gymflow-token-'), 'token');
    await writeFile(file, `${TOKEN}\nsecond line\n`);
    expect(loadToken({ tokenFile: file })).toBe(TOKEN);
    expect(loadToken({ tokenEnv: 'GYM_T' }, { GYM_T: TOKEN })).toBe(TOKEN);
  });

  it('refuses no source, two sources, an empty or short token and a missing file, naming the flag and never the token', async () => {
    const dir = await tempDir('gymflow-token-');
    await writeFile(path.join(dir, 'empty'), '\n');
    expect(refusal(() => loadToken({})).message).toMatch(/--token-file FILE or --token-env/);
    expect(refusal(() => loadToken({ tokenFile: 'x', tokenEnv: 'Y' })).code).toBe('BAD_FLAG');
    expect(refusal(() => loadToken({ tokenFile: path.join(dir, 'empty') })).message).toMatch(/is empty/);
    expect(refusal(() => loadToken({ tokenFile: path.join(dir, 'missing') })).message).toMatch(/ENOENT/);
    expect(refusal(() => loadToken({ tokenEnv: 'GYM_T' }, {})).message).toMatch(/GYM_T is not set/);
    const short = refusal(() => loadToken({ tokenEnv: 'GYM_T' }, { GYM_T: 'short-secret' }));
    expect(short.message).toMatch(/at least 16/);
    expect(short.message).not.toContain('short-secret');
  });
});

describe('bearerCheck', () => {
  const check = bearerCheck(TOKEN);
  it('passes the token as a bearer credential and nothing else', () => {
    expect(check(`Bearer ${TOKEN}`)).toBe(true);
    expect(check(`bearer ${TOKEN}`)).toBe(true);
    for (const header of [undefined, '', 'Bearer', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, TOKEN]) expect(check(header), String(header)).toBe(false);
  });
});
