// Environments whose tasks can be made rather than read: each generator takes its settings (validated by
// its schema) and returns task rows, the same rows for the same settings, without any download.
import type { z } from 'zod';
import { GenerateOptions, generateRuler2 } from '../environments/ruler2/generate';

export interface TaskGenerator {
  /** What the settings mean, for the command's usage text. */
  readonly settings: string;
  readonly schema: z.ZodType;
  readonly generate: (settings: never) => object[];
}

export const GENERATORS: Readonly<Record<string, TaskGenerator>> = {
  ruler2: {
    settings: 'tasks (list; default ["mk_niah_basic","mv_niah_basic"], the synthetic sub-tasks), maxSeqLength (tokens, o200k_base; required), numSamples (per task; required), seed (default 42)',
    schema: GenerateOptions,
    generate: generateRuler2 as (settings: never) => object[],
  },
};
