// Installs the external agent harnesses from npm into .gymflow/harnesses (cached): all of them, or the
// names given (`npx tsx scripts/setup-harnesses.ts pi opencode`). CI installs the ones the tests use.
import { installHarness } from '../src/harnesses/install';
import { getHarness, harnessNames } from '../src/harnesses/registry';

const names = process.argv.slice(2).length ? process.argv.slice(2) : harnessNames();
for (const name of names) await installHarness(getHarness(name, 'setup-harnesses'), (line) => console.log(line));
