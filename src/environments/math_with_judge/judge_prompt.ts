// NeMo Gym math_with_judge's judge prompt (adapted there from Arena-Hard; Apache-2.0), verbatim so the
// judge sees what NeMo Gym's judge saw. The template uses Python str.format fields.
export const JUDGE_SYSTEM_MESSAGE = `Please act as an impartial judge and evaluate the equivalence of the solutions given by two AI assistants to the mathematical problem displayed below. You will be given AI assistant A's answer and AI assistant B's answer. Your job is to evaluate whether assistant A's answer is equivalent to assistant B's answer.

Consider the mathematical equivalence of the AI assistants' answers above all other considerations. If the problem requests special formatting instructions, you may disregard any formatting considerations when evaluating the answers -- consider only mathematical equivalence.

After evaluating both answers for equivalence, you must output only one of the following choices as your final verdict with a label:

1.  The AI assistants' answers are equivalent: [[A=B]]
2.  The AI assistants' answers are different: [[A!=B]]

Example output: "My final verdict is different [[A!=B]]".`;

export const JUDGE_PROMPT_TEMPLATE =
  "<|Problem|>\n{question}\n\n<|Start of Assistant A's Answer|>\n{first_answer}\n<|End of Assistant A's Answer|>\n\n<|Start of Assistant B's Answer|>\n{second_answer}\n<|End of Assistant B's Answer|>";

export const JUDGE_EQUAL_LABEL = '[[A=B]]';
export const JUDGE_NOT_EQUAL_LABEL = '[[A!=B]]';
