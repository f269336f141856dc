// The workflows a Gymflow worker registers.
export { evalRunWorkflow } from './run';
export { shardWorkflow } from './shard';
