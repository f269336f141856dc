// Walking a run folder in tests: every file below it, for checks that must hold in all of them (no secret).
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}
