// Records the seconds each test file held a worker (import, hooks and tests) into tests/durations.json, the
// order the suite starts its files in (sequencer.ts). Files this run did not finish keep their old entry.
// After a full suite on a quiet machine:
//   npx vitest run --reporter=default --reporter=./tests/helpers/durations-reporter.ts
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { DURATIONS_FILE, recordedSeconds } from './sequencer';

const ROOT = path.dirname(path.dirname(DURATIONS_FILE));

export default class DurationsReporter implements Reporter {
  private readonly seconds: Record<string, number> = {};

  onTestModuleEnd(module: TestModule): void {
    if (module.state() !== 'passed') return;
    const d = module.diagnostic();
    const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
    this.seconds[path.relative(ROOT, module.moduleId)] = Math.max(1, Math.round(ms / 1000));
  }

  onTestRunEnd(): void {
    const merged = { ...recordedSeconds(), ...this.seconds };
    const sorted = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => (a < b ? -1 : 1)));
    writeFileSync(DURATIONS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
    console.log(`${path.relative(ROOT, DURATIONS_FILE)}: ${Object.keys(this.seconds).length} files' seconds recorded`);
  }
}
