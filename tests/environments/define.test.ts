// defineEnvironment: the defaults an environment file leaves out, and the definitions it refuses when
// the module loads (a turn-based environment without step, a tool named like a route, …).
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineEnvironment, type EnvironmentSpec } from '../../src/environments/define';
import { environmentNames, getEnvironment } from '../../src/environments/registry';
import { reply } from '../../src/environments/types';
import { TaskRow } from '../../src/schemas/task';

const minimal = {
  name: 'test_minimal',
  description: 'Rewards everything.',
  taskSchema: TaskRow,
  verify: () => ({ reward: 1 }),
};
const task: TaskRow = { responses_create_params: { input: 'hi' } };
const echo = { args: z.object({ text: z.string() }), run: ({ text }: { text: string }, { state }: { state: unknown }) => reply({ text }, state) };

function problemOf(spec: EnvironmentSpec<TaskRow, any>): string {
  try {
    defineEnvironment(spec);
  } catch (e) {
    expect(e).toMatchObject({ code: 'BAD_INPUT' });
    return (e as Error).message;
  }
  throw new Error('the definition was accepted');
}

describe('defaults', () => {
  it('fills in no tools, a null session, the simple agent, no judge and stateless reverification', async () => {
    const env = defineEnvironment(minimal);
    expect(env.tools).toEqual({});
    expect(await env.seedSession(task)).toBeNull();
    expect(env).toMatchObject({ agent: 'simple_agent', requiresJudge: false, reverifyMode: 'stateless' });
  });

  it('reverifies an environment with session state as stateful unless it says otherwise', () => {
    const seeded = { ...minimal, seedSession: () => ({ count: 0 }) };
    expect(defineEnvironment(seeded).reverifyMode).toBe('stateful');
    expect(defineEnvironment({ ...seeded, reverifyMode: 'stateless' }).reverifyMode).toBe('stateless');
  });

  it('plays an environment with reset and step with the gymnasium agent', () => {
    const env = defineEnvironment({ ...minimal, reset: () => ({ state: null, items: [] }), step: (_t, state) => ({ state, items: [], done: true }) });
    expect(env.agent).toBe('gymnasium_agent');
  });

  it('keeps what the spec says', () => {
    const env = defineEnvironment({ ...minimal, agent: 'non_executing_agent', requiresJudge: true });
    expect(env).toMatchObject({ agent: 'non_executing_agent', requiresJudge: true, name: 'test_minimal', description: 'Rewards everything.' });
  });
});

describe('refused definitions', () => {
  it('a gymnasium environment without step', () => {
    expect(problemOf({ ...minimal, agent: 'gymnasium_agent', reset: () => ({ state: null, items: [] }) })).toMatch(
      /environment "test_minimal" is defined wrongly: a gymnasium_agent environment needs both reset and step/,
    );
  });

  it('reset/step on an environment the simple agent plays', () => {
    expect(problemOf({ ...minimal, agent: 'simple_agent', step: (_t, state) => ({ state, items: [], done: true }) })).toMatch(/only played by the gymnasium_agent/);
  });

  it('a tool named like a resources-server route, or not as a tool can be named', () => {
    expect(problemOf({ ...minimal, tools: { verify: echo } })).toMatch(/"verify" is a resources-server route/);
    expect(problemOf({ ...minimal, tools: { 'look up': echo } })).toMatch(/"look up" is not a valid tool name/);
  });

  it('a tool without an args schema', () => {
    expect(problemOf({ ...minimal, tools: { echo: { run: echo.run } as never } })).toMatch(/tool "echo" needs a zod `args` schema/);
  });

  it('tools on an environment whose agent never runs them', () => {
    expect(problemOf({ ...minimal, agent: 'non_executing_agent', tools: { echo } })).toMatch(/tools are never run by the non_executing_agent/);
  });

  it('stateful reverification with no session to rebuild', () => {
    expect(problemOf({ ...minimal, reverifyMode: 'stateful' })).toMatch(/"stateful" without a seedSession/);
  });

  it('an empty description or a name with spaces, all problems at once', () => {
    const message = problemOf({ ...minimal, name: 'two words', description: ' ' });
    expect(message).toMatch(/name must be non-empty, without spaces/);
    expect(message).toMatch(/description is empty/);
  });
});

describe('the registered environments', () => {
  it.each(environmentNames())('%s has no oracle in its production interface', (name) => {
    expect('oracle' in getEnvironment(name)).toBe(false);
  });
});
