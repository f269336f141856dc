// The mock policy's player for image_tools_agent: first a zoom into the upper-left quarter of the task's image, then,
// once the tool has answered, the base environment's own oracle answer.
import type { ConversationItem } from '../../schemas/responses';
import type { TaskRow } from '../../schemas/task';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import { BASE_ENVIRONMENTS } from '.';

export const ZOOM_CALL =
  '<tool_call><function=image_zoom_in_tool><parameter=bbox_2d>[0, 0, 500, 500]</parameter><parameter=label>upper left</parameter><parameter=img_idx>0</parameter></function></tool_call>';

/** `oracleOf` finds a base environment's oracle (the mock's registry, passed in so the two do not import each other). */
export function imageToolsAgentOracle(oracleOf: (env: string) => Oracle<any> | undefined): Oracle<TaskRow & { image_tools_base_agent_ref: { name: string } }> {
  return (task, history, options) => {
    const toolAnswered = history.some((item) => item.type === 'message' && item.role === 'user');
    if (!toolAnswered) return [assistantMessage(ZOOM_CALL) as ConversationItem];
    const mapped = (options.settings?.resource_servers_by_agent as Record<string, string> | undefined) ?? BASE_ENVIRONMENTS;
    const base = oracleOf(mapped[task.image_tools_base_agent_ref.name] ?? '');
    if (!base) return [assistantMessage('I have looked closely; I cannot tell.') as ConversationItem];
    const tail = history.slice(history.findLastIndex((item) => item.type === 'message' && item.role === 'user') + 1);
    return base(task, tail, { ...options, settings: undefined });
  };
}
