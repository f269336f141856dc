// The mock policy's player for openair_congestion: one call per turn — noop when playing right (the
// setpoints in force stay put), a catastrophic PRB cap the guardrail refuses when playing carelessly.
import type { ConversationItem } from '../../schemas/responses';
import type { Oracle } from '../oracle';
import type { OpenAirTask } from '.';

export const openAirCongestionOracle: Oracle<OpenAirTask> = (_task, history, { correct }) => {
  const n = history.filter((item) => item.type === 'function_call').length;
  const call: ConversationItem = correct
    ? { type: 'function_call', call_id: `call_${n}`, name: 'noop', arguments: '{}' }
    : { type: 'function_call', call_id: `call_${n}`, name: 'set_prb_cap', arguments: JSON.stringify({ cell_id: 0, target: 'ue', target_id: 0, max_prb: 0 }) };
  return [call];
};
