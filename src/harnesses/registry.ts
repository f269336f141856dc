// The harnesses by name: what `--agent <harness>` and `gym setup --harnesses` accept.
import { GymError } from '../errors';
import { claudeCode } from './claude-code';
import { cline } from './cline';
import { codex } from './codex';
import { kilo } from './kilo';
import { opencode } from './opencode';
import { openclaw } from './openclaw';
import { pi } from './pi';
import { strands } from './strands';
import { terminus2 } from './terminus-2';
import { HarnessName, type HarnessAdapter } from './types';

const HARNESSES: Record<HarnessName, HarnessAdapter> = { pi, opencode, codex, 'claude-code': claudeCode, kilo, cline, openclaw, strands, 'terminus-2': terminus2 };

export function harnessNames(): HarnessName[] {
  return HarnessName.options;
}

export function isHarnessName(name: string): name is HarnessName {
  return HarnessName.safeParse(name).success;
}

export function getHarness(name: string, flag = '--agent'): HarnessAdapter {
  if (!isHarnessName(name)) throw new GymError('BAD_FLAG', `${flag}: unknown harness "${name}"; known: ${harnessNames().join(', ')}`);
  return HARNESSES[name];
}
