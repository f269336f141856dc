// A rollout journal read back after each step: kept in memory between steps of this process, but never
// stale when someone else (another worker, after a shard moved) wrote the file since.
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileJournal, type JournalEntry } from '../../src/store/journal';

const seed = (state: unknown): JournalEntry => ({ kind: 'seed', state });
const file = () => path.join(mkdtempSync(path.join(tmpdir(), 'gymflow-journal-')), 'work', '0-0.jsonl');

describe('a file journal', () => {
  it('reads back what it appended, in order, and the file holds the same', async () => {
    const journal = new FileJournal(file());
    expect(await journal.read()).toEqual([]);
    await journal.append(seed({ n: 1 }));
    await journal.append(seed({ n: 2 }));
    expect(await journal.read()).toEqual([seed({ n: 1 }), seed({ n: 2 })]);
    const onDisk = readFileSync(journal.file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(onDisk).toEqual([seed({ n: 1 }), seed({ n: 2 })]);
  });

  it('sees entries another process appended since it last read', async () => {
    const journal = new FileJournal(file());
    await journal.append(seed({ n: 1 }));
    expect(await journal.read()).toHaveLength(1);
    appendFileSync(journal.file, `\n${JSON.stringify(seed({ n: 2 }))}\n`);
    expect(await journal.read()).toEqual([seed({ n: 1 }), seed({ n: 2 })]);
    // And its own next append lands after them.
    await journal.append(seed({ n: 3 }));
    expect((await journal.read()).map((e) => (e as { state: { n: number } }).state.n)).toEqual([1, 2, 3]);
  });

  it('sees a file rewritten under it with the same length', async () => {
    const journal = new FileJournal(file());
    await journal.append(seed({ n: 1 }));
    expect(await journal.read()).toEqual([seed({ n: 1 })]);
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(journal.file, `\n${JSON.stringify(seed({ n: 7 }))}\n`);
    expect(await journal.read()).toEqual([seed({ n: 7 })]);
  });

  it('starts empty after remove, and an edit of a read entry fails instead of changing later reads', async () => {
    const journal = new FileJournal(file());
    await journal.append(seed({ n: 1 }));
    const [entry] = await journal.read();
    expect(() => ((entry as { state: { n: number } }).state.n = 5)).toThrow(TypeError);
    expect(await journal.read()).toEqual([seed({ n: 1 })]);
    await journal.remove();
    expect(await journal.read()).toEqual([]);
  });

  it('skips a torn last entry', async () => {
    const journal = new FileJournal(file());
    await journal.append(seed({ n: 1 }));
    appendFileSync(journal.file, '\n{"kind":"se');
    expect(await journal.read()).toEqual([seed({ n: 1 })]);
  });
});
