// The tar the Docker Engine's archive endpoints speak: a writer (ustar, with a PAX record for long names
// and large sizes) and a streaming reader (ustar, PAX and GNU long names), enough to move files in and out.
import { closeSync, createReadStream, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, symlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { GymError } from '../../errors';

const BLOCK = 512;

export type TarEntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface TarEntry {
  path: string;
  type: TarEntryType;
  mode: number;
  size: number;
  linkname?: string;
  mtimeSeconds?: number;
  /** Owner the engine gives the file when it unpacks it (it unpacks as root, keeping the archive's owners). */
  uid?: number;
  gid?: number;
}

export interface Owner {
  uid: number;
  gid: number;
}

const TYPEFLAG: Record<Exclude<TarEntryType, 'other'>, string> = { file: '0', directory: '5', symlink: '2' };

/** The header block(s) of one entry: a PAX record first when a name or the size does not fit ustar's fields. */
export function tarHeader(entry: TarEntry): Buffer {
  if (entry.type === 'other') throw new GymError('BAD_INPUT', `tar: ${entry.path} is neither a file, a folder nor a symlink`);
  const name = entry.type === 'directory' && !entry.path.endsWith('/') ? `${entry.path}/` : entry.path;
  const pax: Record<string, string> = {};
  if (Buffer.byteLength(name) > 100) pax.path = name;
  if (entry.linkname !== undefined && Buffer.byteLength(entry.linkname) > 100) pax.linkpath = entry.linkname;
  if (entry.size >= 8 ** 11) pax.size = String(entry.size);
  const block = ustarBlock({
    name: pax.path ? name.slice(-99) : name,
    mode: entry.mode & 0o7777,
    size: pax.size ? 0 : entry.size,
    mtime: entry.mtimeSeconds ?? Math.floor(Date.now() / 1000),
    typeflag: TYPEFLAG[entry.type],
    linkname: pax.linkpath ? '' : (entry.linkname ?? ''),
    uid: entry.uid ?? 0,
    gid: entry.gid ?? 0,
  });
  if (Object.keys(pax).length === 0) return block;
  const records = Buffer.from(
    Object.entries(pax)
      .map(([k, v]) => paxRecord(k, v))
      .join(''),
  );
  const paxHeader = ustarBlock({ name: 'PaxHeader', mode: 0o644, size: records.length, mtime: 0, typeflag: 'x', linkname: '', uid: 0, gid: 0 });
  return Buffer.concat([paxHeader, records, Buffer.alloc(padding(records.length)), block]);
}

/** Zero bytes that complete a `size`-byte body to whole blocks. */
export function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

export const TAR_END = Buffer.alloc(BLOCK * 2);

/** A tar of one file made in memory. */
export function tarOfFile(name: string, data: Buffer, options: { mode: number } & Partial<Owner>): Buffer {
  return Buffer.concat([tarHeader({ path: name, type: 'file', size: data.length, ...options }), data, Buffer.alloc(padding(data.length)), TAR_END]);
}

/** A tar of a host file or folder (recursively, symlinks kept as links), its top entry named `name`. */
export async function* packHostPath(hostPath: string, name: string, owner?: Owner): AsyncGenerator<Buffer> {
  yield* packOne(hostPath, name, owner);
  yield TAR_END;
}

async function* packOne(hostPath: string, name: string, owner?: Owner): AsyncGenerator<Buffer> {
  const st = lstatSync(hostPath);
  const mtimeSeconds = Math.floor(st.mtimeMs / 1000);
  const common = { mode: st.mode, mtimeSeconds, ...owner };
  if (st.isSymbolicLink()) {
    yield tarHeader({ path: name, type: 'symlink', size: 0, linkname: readlinkSync(hostPath), ...common });
  } else if (st.isDirectory()) {
    yield tarHeader({ path: name, type: 'directory', size: 0, ...common });
    for (const child of readdirSync(hostPath).sort()) yield* packOne(path.join(hostPath, child), `${name}/${child}`, owner);
  } else if (st.isFile()) {
    yield tarHeader({ path: name, type: 'file', size: st.size, ...common });
    let written = 0;
    for await (const chunk of createReadStream(hostPath)) {
      written += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    if (written !== st.size) throw new GymError('CONFLICT', `upload: ${hostPath} changed size while it was being copied`);
    yield Buffer.alloc(padding(st.size));
  } else {
    throw new GymError('BAD_INPUT', `upload: ${hostPath} is neither a file, a folder nor a symlink`);
  }
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

function ustarBlock(h: { name: string; mode: number; size: number; mtime: number; typeflag: string; linkname: string; uid: number; gid: number }): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(h.name, 0, 100);
  octal(block, 100, 8, h.mode);
  octal(block, 108, 8, h.uid);
  octal(block, 116, 8, h.gid);
  octal(block, 124, 12, h.size);
  octal(block, 136, 12, h.mtime);
  block.fill(' ', 148, 156);
  block.write(h.typeflag, 156, 1);
  block.write(h.linkname, 157, 100);
  block.write('ustar\u000000', 257, 8);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8);
  return block;
}

function octal(block: Buffer, offset: number, width: number, value: number): void {
  block.write(`${value.toString(8).padStart(width - 1, '0')}\u0000`, offset, width);
}

/**
 * Reads a tar as its bytes arrive: `onEntry` is told each entry and returns a sink for its body (or
 * nothing to skip it). Long names from PAX and GNU records are applied to the entry they precede.
 */
export class TarReader {
  private pending: Buffer = Buffer.alloc(0);
  private body: { remaining: number; pad: number; sink?: (chunk: Buffer) => void; collect?: Buffer[]; kind?: string } | undefined;
  private next: { path?: string; linkname?: string; size?: number } = {};
  private ended = false;

  constructor(private readonly onEntry: (entry: TarEntry) => ((chunk: Buffer) => void) | undefined) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      if (this.ended) return;
      if (this.body) {
        if (this.body.remaining > 0) {
          if (this.pending.length === 0) return;
          const take = this.pending.subarray(0, Math.min(this.body.remaining, this.pending.length));
          this.pending = this.pending.subarray(take.length);
          this.body.remaining -= take.length;
          if (this.body.sink) this.body.sink(take);
          if (this.body.collect) this.body.collect.push(Buffer.from(take));
          if (this.body.remaining > 0) return;
        }
        if (this.pending.length < this.body.pad) return;
        this.pending = this.pending.subarray(this.body.pad);
        if (this.body.collect) this.applyMeta(this.body.kind!, Buffer.concat(this.body.collect));
        this.body = undefined;
        continue;
      }
      if (this.pending.length < BLOCK) return;
      const header = this.pending.subarray(0, BLOCK);
      this.pending = this.pending.subarray(BLOCK);
      if (header.every((b) => b === 0)) {
        this.ended = true;
        return;
      }
      this.header(header);
    }
  }

  /** Throws when the stream stopped inside an entry. */
  end(): void {
    if (this.body && this.body.remaining > 0) throw new GymError('ENV_ERROR', 'tar: the archive ended inside an entry');
  }

  private header(block: Buffer): void {
    const typeflag = String.fromCharCode(block[156]!);
    let size = this.next.size ?? readNumber(block, 124, 12);
    if (typeflag === '5') size = 0;
    if (typeflag === 'x' || typeflag === 'g' || typeflag === 'L' || typeflag === 'K') {
      size = readNumber(block, 124, 12);
      this.body = { remaining: size, pad: padding(size), collect: [], kind: typeflag };
      return;
    }
    const magic = block.toString('latin1', 257, 262);
    const prefix = magic === 'ustar' ? cString(block, 345, 155) : '';
    const name = this.next.path ?? (prefix ? `${prefix}/${cString(block, 0, 100)}` : cString(block, 0, 100));
    const linkname = this.next.linkname ?? cString(block, 157, 100);
    this.next = {};
    const type: TarEntryType = typeflag === '0' || typeflag === '\u0000' || typeflag === '7' ? 'file' : typeflag === '5' ? 'directory' : typeflag === '2' ? 'symlink' : 'other';
    const entry: TarEntry = { path: name.replace(/\/+$/, ''), type, mode: readNumber(block, 100, 8), size, linkname, mtimeSeconds: readNumber(block, 136, 12) };
    this.body = { remaining: size, pad: padding(size), sink: this.onEntry(entry) };
  }

  private applyMeta(kind: string, data: Buffer): void {
    if (kind === 'L') this.next.path = cString(data, 0, data.length);
    else if (kind === 'K') this.next.linkname = cString(data, 0, data.length);
    else if (kind === 'x') {
      for (let at = 0; at < data.length;) {
        const space = data.indexOf(0x20, at);
        const length = Number(data.toString('latin1', at, space));
        if (space === -1 || !Number.isInteger(length) || length <= 0) throw new GymError('ENV_ERROR', 'tar: a malformed PAX record');
        const record = data.toString('utf8', space + 1, at + length - 1);
        const eq = record.indexOf('=');
        const key = record.slice(0, eq);
        const value = record.slice(eq + 1);
        if (key === 'path') this.next.path = value;
        else if (key === 'linkpath') this.next.linkname = value;
        else if (key === 'size') this.next.size = Number(value);
        at += length;
      }
    }
  }
}

function cString(block: Buffer, offset: number, width: number): string {
  const field = block.subarray(offset, offset + width);
  const nul = field.indexOf(0);
  return field.subarray(0, nul === -1 ? field.length : nul).toString('utf8');
}

function readNumber(block: Buffer, offset: number, width: number): number {
  const field = block.subarray(offset, offset + width);
  // GNU base-256: the high bit of the first byte set, the rest big-endian.
  if (field[0]! & 0x80) {
    let value = field[0]! & 0x7f;
    for (const byte of field.subarray(1)) value = value * 256 + byte;
    return value;
  }
  const text = cString(block, offset, width).trim();
  return text === '' ? 0 : parseInt(text, 8);
}

/**
 * Unpacks a tar whose top entry becomes `hostPath`. Entries that would land outside it (absolute paths,
 * `..`) are refused, and symlinks are made last so no file of the archive is written through one.
 */
export function hostUnpacker(hostPath: string): { reader: TarReader; finish(): void } {
  const links: { at: string; target: string }[] = [];
  let open: number | undefined;
  const closeOpen = () => {
    if (open !== undefined) closeSync(open);
    open = undefined;
  };
  const reader = new TarReader((entry) => {
    closeOpen();
    const parts = entry.path.split('/').filter((p) => p !== '' && p !== '.');
    if (entry.path.startsWith('/') || parts.includes('..') || parts.length === 0) {
      throw new GymError('ENV_ERROR', `download: the sandbox's archive has an entry outside its folder: ${entry.path}`);
    }
    const at = path.join(hostPath, ...parts.slice(1));
    if (entry.type === 'directory') mkdirSync(at, { recursive: true, mode: entry.mode & 0o777 });
    else if (entry.type === 'symlink') links.push({ at, target: entry.linkname ?? '' });
    else if (entry.type === 'file') {
      mkdirSync(path.dirname(at), { recursive: true });
      const fd = openSync(at, 'w', entry.mode & 0o777);
      open = fd;
      return (chunk) => void writeSync(fd, chunk);
    }
    return undefined;
  });
  return {
    reader,
    finish() {
      closeOpen();
      reader.end();
      for (const link of links) symlinkSync(link.target, link.at);
    },
  };
}
