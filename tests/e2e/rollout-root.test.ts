// A rollout's root span starts no later than its first step, on the same clock as every other span, so
// `gym eval trace` shows the root at +0.0 ms and above its children.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { installTracing } from '../../src/tracing/provider';
import { endRolloutTrace, inRolloutStep } from '../../src/tracing/rollout';
import { SpanLine } from '../../src/tracing/span-line';
import { quietLogger, tempDir } from '../helpers/run';

it('starts each root span no later than the first step of its rollout', async () => {
  const tracing = installTracing('gymflow-test', quietLogger, { files: true, otlp: false })!;
  const runDir = await tempDir('gymflow-root-');
  // Many rollouts, so that some first steps start within the millisecond their rollout was first seen.
  const keys = Array.from({ length: 300 }, (_, i) => ({ runDir, epoch: 'epoch-1', rolloutId: `${i}-0` }));
  for (const key of keys) {
    await inRolloutStep(key, 'turn 1', {}, async () => {});
    endRolloutTrace(key, {});
  }
  await tracing.flush();
  const dir = path.join(runDir, 'traces');
  const spans = readdirSync(dir).flatMap((f) =>
    readFileSync(path.join(dir, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => SpanLine.parse(JSON.parse(l))),
  );
  const roots = new Map(spans.filter((s) => !s.parent_span_id).map((s) => [s.trace_id, s]));
  expect(roots.size).toBe(keys.length);
  const early = spans.filter((s) => s.parent_span_id && BigInt(s.start_time_unix_nano) < BigInt(roots.get(s.trace_id)!.start_time_unix_nano));
  expect(early.map((s) => `${s.name} of ${roots.get(s.trace_id)!.name} starts ${BigInt(roots.get(s.trace_id)!.start_time_unix_nano) - BigInt(s.start_time_unix_nano)} ns before it`)).toEqual([]);
});
