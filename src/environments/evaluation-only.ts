// Why an environment is for evaluation only: the reason `gym env list` shows and export-training warns with.

/** NeMo Gym ships the environment's data only as benchmark (and example) sets, with no training split. */
export const BENCHMARK_ONLY = 'its data is a benchmark (NeMo Gym ships no training split): training on its rollouts would contaminate the benchmark';
