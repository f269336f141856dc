import { describe, expect, it } from 'vitest';
import { formatDuration, formatProgress, RateMeter } from '../../src/cli/progress';

describe('progress line', () => {
  it('shows done, failed, in flight, rate, ETA and mean reward', () => {
    const line = formatProgress({ phase: 'running', total: 200, done: 90, failed: 10, inFlight: 8, concurrency: 8, paused: false, meanReward: 0.5 }, 4, 10);
    expect(line).toBe('█████░░░░░ 100/200 · 90 done · 10 failed · 8 in flight · 4.0 rollouts/s · ETA 0:25 · mean reward 0.500');
  });
  it('formats durations and measures rates over a window', () => {
    expect(formatDuration(3725)).toBe('1:02:05');
    expect(formatDuration(Infinity)).toBe('--:--');
    const meter = new RateMeter(10_000);
    meter.add(0, 0);
    expect(meter.add(2000, 10)).toBe(5);
  });
});
