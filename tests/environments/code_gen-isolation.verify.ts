// Verifies one answer with a code_gen environment in a process of its own, as a worker would, so a test
// controls that process's environment (a secret key, a PATH without bwrap). Argument: JSON
// {env, task, answer}; prints JSON {result} or {error: {code, message}}.
import { getEnvironment } from '../../src/environments/registry';
import { isGymError } from '../../src/errors';
import { answerResponse } from './nemo_fixtures';

const { env, task, answer } = JSON.parse(process.argv[2]!) as { env: string; task: unknown; answer: string };
try {
  const environment = getEnvironment(env);
  const result = await environment.verify(environment.taskSchema.parse(task), answerResponse(answer), { state: null });
  process.stdout.write(JSON.stringify({ result }));
} catch (e) {
  process.stdout.write(JSON.stringify({ error: { code: isGymError(e) ? e.code : null, message: (e as Error).message } }));
}
