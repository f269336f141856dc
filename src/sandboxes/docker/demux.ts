// Splits the Docker Engine's multiplexed exec stream (8-byte frame headers: stream, 0, 0, 0, size) back
// into stdout and stderr, however the frames are cut across socket reads.
import type { OutputStream } from '../provider';

const HEADER = 8;

export class Demuxer {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly emit: (stream: OutputStream, chunk: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= HEADER) {
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < HEADER + size) return;
      const kind = this.pending[0];
      const payload = this.pending.subarray(HEADER, HEADER + size);
      this.pending = this.pending.subarray(HEADER + size);
      // 1 is stdout, 2 stderr; 0 (stdin echo) does not occur without a terminal.
      if (size > 0 && (kind === 1 || kind === 2)) this.emit(kind === 1 ? 'stdout' : 'stderr', payload);
    }
  }
}

/** Keeps the last `limit` bytes of a stream. */
export class Tail {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0]!.length >= this.limit) this.size -= this.chunks.shift()!.length;
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit)).toString('utf8');
  }
}
