// The mock's oracle registry: every built-in environment has one, a configured environment plays its
// base environment's oracle with its settings, a remote one has none (the mock answers plainly).
import { describe, expect, it } from 'vitest';
import { lastAssistantAnswer } from '../../src/environments/equivalence_llm_judge/extract';
import { environmentNames, getEnvironment } from '../../src/environments/registry';
import { configuredEnvironmentName, remoteEnvironmentName } from '../../src/environments/names';
import { oracleFor } from '../../src/gateway/backends/mock/oracles';
import { outputText } from '../../src/schemas/responses';
import { seededRng } from '../../src/util/rng';
import { gatewayWithLogs, MULTI_STEP_TASKS, postJson, readJsonl } from './helpers';

describe('oracleFor', () => {
  it.each(environmentNames())('finds an oracle for %s', (name) => {
    expect(oracleFor(name)).toMatchObject({ settings: {} });
  });

  it('gives a configured environment its base oracle and its settings', () => {
    const name = configuredEnvironmentName('math_with_judge', { should_use_judge: false });
    expect(oracleFor(name)).toEqual({ play: oracleFor('math_with_judge')!.play, settings: { should_use_judge: false } });
  });

  it('has none for a remote environment or an unknown name', () => {
    expect(oracleFor(remoteEnvironmentName('http://127.0.0.1:9/', ['a']))).toBeUndefined();
    expect(oracleFor('no_such_environment')).toBeUndefined();
  });

  it('answers so that the configured extraction regex reads the answer back', () => {
    const regex = '<final_answer>(.*?)</final_answer>';
    const name = configuredEnvironmentName('equivalence_llm_judge', { use_per_record_regex: false, response_extract_regex: regex });
    getEnvironment(name); // the settings are valid ones
    const task = { responses_create_params: { input: 'What is 2 + 2?' }, expected_answer: '4' };
    const play = (envName: string) => {
      const oracle = oracleFor(envName)!;
      return oracle.play(task, [], { correct: true, rng: seededRng(1), settings: oracle.settings });
    };
    const configured = play(name);
    expect(outputText(configured)).toContain('<final_answer>4</final_answer>');
    expect(lastAssistantAnswer(configured, regex, '')).toBe('4');
    // With the shipped settings (no regex: the whole text is the answer) it answers with the bare gold text.
    expect(outputText(play('equivalence_llm_judge'))).toBe('4');
  });
});

describe('the mock on a remote environment', () => {
  it('recognises the task but, with no oracle to play, answers with a plain message and says why', async () => {
    const g = await gatewayWithLogs();
    try {
      const model = g.gateway.register({ backend: 'mock', env: remoteEnvironmentName('http://127.0.0.1:9/', []), tasks_file: MULTI_STEP_TASKS });
      const [task] = readJsonl(MULTI_STEP_TASKS);
      const res = await postJson(g.gateway, '/responses', { ...task.responses_create_params, model }, { 'x-gymflow-rollout-id': 'remote-1' });
      expect(res.status).toBe(200);
      expect(res.body.output).toHaveLength(1);
      expect(res.body.output[0]).toMatchObject({ type: 'message', role: 'assistant' });
      const warning = g.logLines().find((l) => l.rollout_id === 'remote-1' && l.level === 40);
      expect(warning?.msg).toMatch(/the environment has no oracle/);
    } finally {
      await g.gateway.close();
    }
  });
});
