// Gymflow's labels as OpenSandbox sandbox metadata, which the server checks against Kubernetes label rules
// (values of at most 63 of [A-Za-z0-9._-]): any other value goes base32-encoded, split over numbered keys.
import { GymError } from '../../errors';
import { ProcessIdentity } from '../local/record';
import { SandboxLabels } from '../schema';

const PREFIX = 'gymflow.';
/** Marks a sandbox as Gymflow's: `list` asks the server for these only. */
export const MARKER = { key: `${PREFIX}sandbox`, value: 'true' } as const;
const MAX = 63;
const PLAIN = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const ENCODED = 'b32.';
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

function unbase32(text: string): Buffer {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) throw new GymError('BAD_INPUT', `opensandbox metadata: ${JSON.stringify(text)} is not base32`);
    value = ((value << 5) | digit) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** One value as metadata entries under `name`: itself when it is a valid label value, else encoded and split. */
function encodeValue(name: string, value: string): Record<string, string> {
  const key = PREFIX + name;
  if (value.length <= MAX && PLAIN.test(value) && !value.startsWith(ENCODED)) return { [key]: value };
  const encoded = ENCODED + base32(Buffer.from(value, 'utf8'));
  const entries: Record<string, string> = {};
  for (let i = 0; i * MAX < encoded.length; i++) entries[i === 0 ? key : `${key}.${i + 1}`] = encoded.slice(i * MAX, (i + 1) * MAX);
  return entries;
}

function decodeValue(name: string, metadata: Record<string, string>): string | undefined {
  const key = PREFIX + name;
  let text = metadata[key];
  if (text === undefined) return undefined;
  for (let i = 2; metadata[`${key}.${i}`] !== undefined; i++) text += metadata[`${key}.${i}`];
  return text.startsWith(ENCODED) ? unbase32(text.slice(ENCODED.length)).toString('utf8') : text;
}

/** What Gymflow keeps on a sandbox besides its labels. */
export interface SandboxNotes {
  /** Where relative paths and commands start. */
  workdir: string;
  /** The process using the sandbox now: gc takes it for an orphan once that process is gone. */
  owner: ProcessIdentity;
}

export function labelsMetadata(labels: Partial<SandboxLabels>): Record<string, string> {
  return Object.assign(
    {},
    ...Object.entries(labels)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => encodeValue(k, String(v))),
  );
}

export function ownerMetadata(owner: ProcessIdentity): Record<string, string> {
  return encodeValue('owner', JSON.stringify(owner));
}

export function sandboxMetadata(labels: SandboxLabels, notes: SandboxNotes): Record<string, string> {
  return { [MARKER.key]: MARKER.value, ...labelsMetadata(labels), ...encodeValue('workdir', notes.workdir), ...ownerMetadata(notes.owner) };
}

/** Labels and notes back from a sandbox's metadata; undefined when it is not (wholly) Gymflow's. */
export function readMetadata(metadata: Record<string, string> | undefined): { labels: SandboxLabels; notes: SandboxNotes } | undefined {
  if (!metadata || metadata[MARKER.key] !== MARKER.value) return undefined;
  const labels = SandboxLabels.safeParse({
    run: decodeValue('run', metadata),
    rollout: decodeValue('rollout', metadata),
    attempt: Number(decodeValue('attempt', metadata)),
    user: decodeValue('user', metadata),
  });
  const owner = ProcessIdentity.safeParse(JSON.parse(decodeValue('owner', metadata) ?? 'null'));
  const workdir = decodeValue('workdir', metadata);
  if (!labels.success || !owner.success || !workdir) return undefined;
  return { labels: labels.data, notes: { workdir, owner: owner.data } };
}
