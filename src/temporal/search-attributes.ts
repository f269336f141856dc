// Search attributes every run carries, so `gym eval list` and Temporal's own list/count queries can
// filter runs by id, environment, agent, model and status. Safe to import from workflow code.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const RUN_ID = defineSearchAttributeKey('GymRunId', SearchAttributeType.KEYWORD);
export const ENV_NAME = defineSearchAttributeKey('GymEnv', SearchAttributeType.KEYWORD);
export const AGENT_NAME = defineSearchAttributeKey('GymAgent', SearchAttributeType.KEYWORD);
export const MODEL_NAME = defineSearchAttributeKey('GymModel', SearchAttributeType.KEYWORD);
export const RUN_STATUS = defineSearchAttributeKey('GymStatus', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [RUN_ID, ENV_NAME, AGENT_NAME, MODEL_NAME, RUN_STATUS];
