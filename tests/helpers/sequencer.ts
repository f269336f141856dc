// The order the suite's files start in: the longest first, by the seconds recorded in tests/durations.json
// (durations-reporter.ts writes it). A fresh clone has no timings of
// its own, and vitest would start files by size, which left the longest end-to-end files for the last minutes
// and the run waiting on them. Files the record does not know yet start first, as vitest would start them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const DURATIONS_FILE = path.join(ROOT, 'tests/durations.json');

// CI builds the compose stack's parts beside the suite (.ci/run): the files that need them (its images, or its
// Go-built Temporal server) start after every other isolated file.
const LAST = new Set(['tests/e2e/compose.test.ts', 'tests/e2e/secured-cluster.test.ts']);

export function recordedSeconds(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = recordedSeconds();
    const rank = (spec: TestSpecification) => {
      const file = path.relative(ROOT, spec.moduleId);
      // Isolated files first and shared ones after, in one block, so their shared workers are reused back to back.
      return [spec.project.config.isolate ? 0 : 1, LAST.has(file) ? 1 : 0, -(seconds[file] ?? Infinity)];
    };
    return [...files]
      .map((spec) => ({ spec, rank: rank(spec) }))
      .sort((a, b) => a.rank.map((v, i) => v - b.rank[i]!).find((d) => d !== 0) ?? 0)
      .map(({ spec }) => spec);
  }
}
