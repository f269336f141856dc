// The mock policy's player for agentif: AgentIF has no reference answer, so a right answer is one step in
// the shape the agent prompt asks for (a <code> or a <thought> block calling finish); a wrong one is empty,
// which no code check can grade. Whether the judge steps pass is the judge's say.
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { AgentIFTask } from '.';

export const agentifOracle: Oracle<AgentIFTask> = (task, _history, { correct }) => {
  if (!correct) return [assistantMessage('')];
  const step = "finish(answer='done')";
  const codePrompt = task.verifier_metadata?.prompt_type === 'Code_prompt';
  return [assistantMessage(codePrompt ? `<code>\n${step}\n</code>` : `<thought>\nThe task is complete: ${step}\n</thought>`)];
};
