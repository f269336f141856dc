// The live progress line of a run: done, failed, in flight, rate and ETA. Formatting is pure; the
// reporter decides how often to draw (in place on a terminal, a line every few seconds otherwise).
import type { RunProgress } from '../../workflows/definitions';

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, '0');
  return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

export function formatProgress(p: RunProgress, ratePerSec: number, width = 24): string {
  if (p.phase === 'collating' || p.total === null) return 'collating tasks…';
  const finished = p.done + p.failed;
  const filled = p.total ? Math.round((finished / p.total) * width) : width;
  const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
  const eta = ratePerSec > 0 ? formatDuration((p.total - finished) / ratePerSec) : '--:--';
  const mean = p.meanReward === null ? '' : ` · mean reward ${p.meanReward.toFixed(3)}`;
  const paused = p.paused ? ' · PAUSED' : '';
  return `${bar} ${finished}/${p.total} · ${p.done} done · ${p.failed} failed · ${p.inFlight} in flight · ${ratePerSec.toFixed(1)} rollouts/s · ETA ${eta}${mean}${paused}`;
}

/** Rollouts per second over a sliding window of recent samples. */
export class RateMeter {
  private samples: { t: number; n: number }[] = [];
  constructor(private windowMs = 15_000) {}
  add(t: number, finished: number): number {
    this.samples.push({ t, n: finished });
    while (this.samples.length > 2 && t - this.samples[0]!.t > this.windowMs) this.samples.shift();
    const first = this.samples[0]!;
    const dt = (t - first.t) / 1000;
    return dt > 0 ? (finished - first.n) / dt : 0;
  }
}

export function createProgressReporter(stream: NodeJS.WriteStream = process.stderr) {
  const meter = new RateMeter();
  let lastPlain = 0;
  return {
    update(p: RunProgress) {
      const now = Date.now();
      const line = formatProgress(p, meter.add(now, p.done + p.failed));
      if (stream.isTTY) stream.write(`\r\x1b[2K${line}`);
      else if (now - lastPlain >= 5000) {
        stream.write(`${line}\n`);
        lastPlain = now;
      }
    },
    finish() {
      if (stream.isTTY) stream.write('\n');
    },
  };
}
