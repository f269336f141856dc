// The `--store s3://bucket/prefix` URL: which bucket and key prefix a run's objects live under. Only this
// URL travels in a run's settings and workflow input; the endpoint and credentials stay in each process's environment.
import { GymError } from '../../errors';

export interface StoreUrl {
  bucket: string;
  /** Key prefix without a leading or trailing slash; '' for the bucket's root. */
  prefix: string;
}

/** S3's own rules for bucket names (3-63 lowercase letters, digits, dots and hyphens). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Whether a string names an object store rather than a folder. */
export const isObjectStoreUrl = (s: string | undefined): s is string => typeof s === 'string' && s.startsWith('s3://');

export function parseStoreUrl(url: string, flag = '--store'): StoreUrl {
  const m = /^s3:\/\/([^/?#]+)(?:\/([^?#]*))?$/.exec(url);
  if (!m) throw new GymError('BAD_FLAG', `${flag} ${url}: expected s3://<bucket>[/<prefix>]`);
  const bucket = m[1]!;
  if (!BUCKET.test(bucket)) throw new GymError('BAD_FLAG', `${flag} ${url}: "${bucket}" is not a valid bucket name (3-63 lowercase letters, digits, "." and "-")`);
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((part) => part === '.' || part === '..' || (prefix !== '' && part === '')))
    throw new GymError('BAD_FLAG', `${flag} ${url}: the prefix must not hold empty, "." or ".." parts`);
  return { bucket, prefix };
}

/** The URL of one run under a campaign's store root: `<root>/<run id>`. */
export function runStoreUrl(root: string, runId: string): string {
  const { bucket, prefix } = parseStoreUrl(root);
  return `s3://${bucket}/${prefix ? `${prefix}/` : ''}${runId}`;
}

/** The full key of a run's file: its prefix joined with the file's name inside the run. */
export function objectKey(url: StoreUrl, name: string): string {
  return url.prefix ? `${url.prefix}/${name}` : name;
}
