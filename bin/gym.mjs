#!/usr/bin/env node
// Entry point of the `gym` command: TypeScript sources run through tsx, no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exit(await main(process.argv.slice(2)));
