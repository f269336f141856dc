// A child process for tests that verify answers which may freeze a process: it reads cases as JSON on
// stdin, verifies each in turn while an interval ticks, and prints each outcome with the ticks seen.
import { getEnvironment } from '../../src/environments/registry';
import type { JudgeCall } from '../../src/environments/types';
import { isGymError } from '../../src/errors';
import type { ConversationItem } from '../../src/schemas/responses';
import { answerResponse } from './nemo_fixtures';

export interface ChildCase {
  env: string;
  task: unknown;
  /** The final answer; `output` items (tool calls, say) come before it in the episode. */
  text: string;
  output?: ConversationItem[];
}

export interface ChildOutcome {
  reward?: number;
  error?: { code?: string; message: string };
  /** Interval ticks counted once the case was over: rising numbers mean the event loop kept running. */
  ticks: number;
}

/** A fake judge model (none can run here): it always answers "equal", in the Responses shape. */
const fakeJudge: JudgeCall = async () => answerResponse('[[A=B]]');

let ticks = 0;
let waiters: (() => void)[] = [];
const interval = setInterval(() => {
  ticks++;
  for (const resolve of waiters.splice(0)) resolve();
}, 10);
const nextTick = () => new Promise<void>((resolve) => waiters.push(resolve));

let input = '';
for await (const chunk of process.stdin) input += chunk;
const outcomes: ChildOutcome[] = [];
for (const c of JSON.parse(input) as ChildCase[]) {
  const env = getEnvironment(c.env);
  let outcome: Omit<ChildOutcome, 'ticks'>;
  try {
    const response = answerResponse(c.text);
    response.output.unshift(...(c.output ?? []));
    const result = await env.verify(env.taskSchema.parse(c.task), response, { state: null, judge: fakeJudge });
    outcome = { reward: result.reward };
  } catch (e) {
    outcome = { error: { code: isGymError(e) ? e.code : undefined, message: (e as Error).message } };
  }
  await nextTick();
  outcomes.push({ ...outcome, ticks });
}
clearInterval(interval);
waiters = [];
process.stdout.write(JSON.stringify(outcomes));
