// The conformance table: regenerated in memory, it must equal docs/environments.md, and every
// environment without a documented exception must reproduce every reward NeMo Gym recorded.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { conformance, DOC_FILE, EXCEPTIONS, renderDoc, type EnvRow } from '../../scripts/conformance';

let rows: EnvRow[];
beforeAll(async () => {
  rows = await conformance();
});

describe('docs/environments.md', () => {
  it('is up to date (regenerate with `npx tsx scripts/conformance.ts`)', () => {
    expect(readFileSync(DOC_FILE, 'utf8')).toBe(renderDoc(rows));
  });
});

describe('conformance with NeMo Gym recorded rollouts', () => {
  it('every environment without a documented exception reproduces every recorded reward', () => {
    const checked = rows.filter((r) => r.env && r.files.length && !EXCEPTIONS[r.name]);
    expect(checked.length).toBeGreaterThanOrEqual(15);
    for (const row of checked) {
      for (const file of row.files) {
        expect({ file: file.file, error: file.error, unjoined: file.unjoined, failed: file.judgeFailed + file.verifyErrors }).toEqual({ file: file.file, error: undefined, unjoined: 0, failed: 0 });
        expect({ file: file.file, agreed: file.agreed }).toEqual({ file: file.file, agreed: file.rows });
      }
    }
  });

  it('mcqa differs only on the stale recording, which Gymflow (like current NeMo Gym) scores 1.0', () => {
    const mcqa = rows.find((r) => r.name === 'mcqa')!;
    expect(mcqa.files.flatMap((f) => f.disagreements.map((d) => ({ file: f.file, ...d })))).toEqual([
      { file: 'tests/fixtures/nemo-gym/mcqa/example_rollouts.jsonl', line: 3, taskIndex: 1, env: 'mcqa', recorded: 0, recomputed: 1 },
    ]);
    expect(mcqa.files.reduce((n, f) => n + f.agreed, 0)).toBe(9);
  });
});
