// A social-bias task row: the passage and question as the policy sees them, plus the hidden
// expected_values the judges grade against (never shown to the policy).
import { z } from 'zod';
import { TaskRow } from '../../schemas/task';
import { ExpectedValues } from './expected_values';

export const SocialBiasTask = TaskRow.extend({ expected_values: ExpectedValues });
export type SocialBiasTask = z.infer<typeof SocialBiasTask>;
