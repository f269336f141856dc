// The mock policy's player for image_tools: the demonstrated call in the agent's XML form, or, when it should
// be wrong, a call of another tool family.
import type { ConversationItem } from '../../schemas/responses';
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import { expectedAction, type ImageToolsTask } from '.';

const xmlCall = (name: string, args: Record<string, unknown>) =>
  `<tool_call>\n<function=${name}>\n${Object.entries(args)
    .map(([k, v]) => `<parameter=${k}>\n${JSON.stringify(v)}\n</parameter>\n`)
    .join('')}</function>\n</tool_call>`;

export const imageToolsOracle: Oracle<ImageToolsTask> = (task, _history, { correct }) => {
  const expected = expectedAction(task);
  if (correct && expected) return [assistantMessage(xmlCall(expected.name, expected.arguments)) as ConversationItem];
  const other = expected?.name === 'image_flip_tool' ? 'image_rotate_tool' : 'image_flip_tool';
  return [assistantMessage(xmlCall(other, { axis: 'vertical', degrees: 90, img_idx: 0 })) as ConversationItem];
};
