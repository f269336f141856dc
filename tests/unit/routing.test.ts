// Task routing, pure: NeMo Gym's precedence (agent_map by agent_ref, then task_source, then _default, then
// the row's agent_ref, then task_source resolution), fan-outs, dataset pins, the environment each row gets,
// the settings' own problems, and the per-agent / per-environment metrics of a routed run.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load';
import { BreakdownAccumulator } from '../../src/metrics/breakdown';
import { routingGraph } from '../../src/routing/graph';
import { routedRepeats } from '../../src/routing/repeats';
import { RoutingSettings, routeRows, settingsProblems } from '../../src/routing/route';
import { PACKAGE_ROOT } from '../../src/util/paths';

const CONFIG = path.resolve(import.meta.dirname, '../fixtures/routing/three-environments.yaml');
const load = (overrides: string[] = []) => loadConfig({ files: [CONFIG], overrides, cwd: PACKAGE_ROOT, env: {}, installRoot: PACKAGE_ROOT, envYaml: '/dev/null' });
const graph = routingGraph(load());
const route = (rows: Record<string, unknown>[], settings: RoutingSettings = {}) => routeRows(rows, settings, graph);
const played = (rows: Record<string, unknown>[], settings: RoutingSettings = {}) => route(rows, settings).rows.map((r) => `${r.agent}@${r.env.name}`);

describe('routeRows', () => {
  it('follows NeMo Gym precedence: map[agent_ref] > map[task_source] > _default > agent_ref > task_source', () => {
    const row = { agent_ref: { name: 'mcqa_simple_agent' }, task_source: 'mcqa_simple_agent' };
    const bySource = { task_source: 'example_multi_step' };
    expect(played([row, bySource])).toEqual(['mcqa_simple_agent@mcqa', 'example_multi_step_simple_agent@example_multi_step']);
    expect(played([row], { agent_map: { mcqa_simple_agent: 'string_match_simple_agent', _default: 'string_match_second_agent' } })).toEqual(['string_match_simple_agent@mcqa']);
    expect(played([bySource], { agent_map: { example_multi_step: 'string_match_simple_agent', _default: 'string_match_second_agent' } })).toEqual(['string_match_simple_agent@example_multi_step']);
    expect(played([row, bySource], { agent_name: 'string_match_second_agent' })).toEqual(['string_match_second_agent@mcqa', 'string_match_second_agent@example_multi_step']);
    // A row with no task_source is played against its agent's environment.
    expect(played([{ agent_ref: { name: 'string_match_simple_agent' } }])).toEqual(['string_match_simple_agent@string_match']);
  });

  it('fans a row out to each agent listed in fan_out or in an agent_map list, keyed before re-mapping', () => {
    const row = { task_source: 'string_match' };
    expect(played([row], { fan_out: { string_match: ['string_match_simple_agent', 'string_match_second_agent'] } })).toEqual([
      'string_match_simple_agent@string_match',
      'string_match_second_agent@string_match',
    ]);
    expect(played([row], { agent_map: { string_match: ['string_match_second_agent', 'string_match_simple_agent'] } })).toEqual([
      'string_match_second_agent@string_match',
      'string_match_simple_agent@string_match',
    ]);
    expect(played([row], { agent_map: { _default: 'mcqa_simple_agent' }, fan_out: { string_match: ['string_match_second_agent'] } })).toEqual(['string_match_second_agent@string_match']);
    const routed = route([{ ...row, agent_ref: { type: 'responses_api_agents', name: 'x' }, task_source: 'string_match' }], { fan_out: { x: ['string_match_simple_agent'] } });
    expect(routed.rows[0]!.row.agent_ref).toEqual({ type: 'responses_api_agents', name: 'string_match_simple_agent' });
  });

  it('resolves a resources server through its one dataset pin; a pin off its agents is a problem', () => {
    const pin = (agent: string) => [`++string_match.resources_servers.string_match.datasets=[{name: example, type: example, jsonl_fpath: x.jsonl, agent: ${agent}}]`];
    const pinned = routingGraph(load(pin('string_match_second_agent')));
    expect(routeRows([{ task_source: 'string_match' }], {}, pinned).rows.map((r) => r.agent)).toEqual(['string_match_second_agent']);
    const wrong = routingGraph(load(pin('mcqa_simple_agent')));
    expect(routeRows([{ task_source: 'string_match' }], {}, wrong).problems).toEqual([
      'task_source "string_match": its datasets pin agent "mcqa_simple_agent", which is not an agent bound to resources server "string_match" (bound: string_match_second_agent, string_match_simple_agent)',
    ]);
  });

  it('reports every row problem at once, each source once, and warns about legacy and re-routed rows', () => {
    const r = route([{ task_source: 'string_match' }, { task_source: 'string_match' }, { task_source: 'policy_model' }, {}, {}, { agent_ref: { name: 'nobody' } }]);
    expect(r.problems).toEqual([
      'line 6: agent_ref names unknown agent "nobody"; the configuration\'s agents: example_multi_step_simple_agent, mcqa_simple_agent, string_match_second_agent, string_match_simple_agent',
      'task_source "string_match": 2 agents are bound to it (string_match_second_agent, string_match_simple_agent); pin one with `agent:` on the dataset, or pass +agent_map={string_match: <agent>}',
      'task_source "policy_model" is a responses_api_models instance; only agents and resources servers declare datasets',
      'no agent for line(s) 4, 5: they have neither agent_ref nor task_source; pass +agent_name=<agent> (or +agent_map={_default: <agent>}), or collate the data with gym dataset collate',
    ]);
    expect(r.warnings).toEqual([
      '1 row(s) are routed by the agent_ref they carry, without a task_source: this is deprecated; collate the data again with gym dataset collate (it stamps task_source), or route them with +agent_map',
    ]);
    expect(route([{ agent_ref: { name: 'mcqa_simple_agent' }, task_source: 'mcqa_simple_agent' }], { agent_name: 'string_match_simple_agent' }).warnings).toEqual([
      'agent_map re-routed rows away from the agent_ref they carry: mcqa_simple_agent → string_match_simple_agent',
    ]);
  });
});

describe('settingsProblems', () => {
  it('names targets that are not agents, a conflicting +agent_name and repeated fan-out agents', () => {
    const parsed = RoutingSettings.parse({
      agent_name: 'mcqa_simple_agent',
      agent_map: { _default: 'string_match_simple_agent', x: 'mcqa', y: 'mcqa_simple_agnt' },
      fan_out: { string_match: ['string_match_simple_agent', 'string_match_simple_agent'] },
    });
    expect(settingsProblems(parsed, graph)).toEqual([
      'agent_name=mcqa_simple_agent conflicts with agent_map._default=string_match_simple_agent; set only one of them',
      'fan_out.string_match lists string_match_simple_agent more than once; each listed agent plays every matching row once (use num_repeats for more)',
      'agent_map.x: "mcqa" is a resources_servers instance, not an agent (responses_api_agents)',
      'agent_map.y: unknown agent "mcqa_simple_agnt" (did you mean "mcqa_simple_agent"?); the configuration\'s agents: example_multi_step_simple_agent, mcqa_simple_agent, string_match_second_agent, string_match_simple_agent',
    ]);
    expect(RoutingSettings.safeParse({ fan_out: { a: [] } }).error?.issues[0]?.message).toBe('is an empty list, which would drop every row it matches; list at least one agent');
  });
});

describe('BreakdownAccumulator', () => {
  it('computes each agent and environment over its own tasks, counting the missing and the sidecar', () => {
    const groups = new Map([
      [0, { agent: 'a', environment: 'e1' }],
      [1, { agent: 'b', environment: 'e1' }],
      [2, { agent: 'b', environment: 'e2' }],
    ]);
    const acc = new BreakdownAccumulator(groups);
    acc.addRollout({ taskIndex: 0, rolloutIndex: 0, reward: 1 });
    acc.addRollout({ taskIndex: 0, rolloutIndex: 1, reward: 0 });
    acc.addRollout({ taskIndex: 1, rolloutIndex: 0, reward: 1 });
    acc.addFailure('model_error', { taskIndex: 2, rolloutIndex: 0 });
    const { per_agent, per_environment } = acc.result(2);
    expect(Object.keys(per_agent)).toEqual(['a', 'b']);
    expect(per_agent.a).toMatchObject({ rollouts_expected: 2, rollouts_recorded: 2, mean_reward: 0.5, task_set: 1, pass_at_k: { 'pass@1': 0.5, 'pass@2': 1 } });
    expect(per_agent.b).toMatchObject({ rollouts_expected: 4, rollouts_recorded: 1, rollouts_failed: 1, rollouts_missing: 2, mean_reward: 1, task_set: 2, failure_classes: { model_error: 1 } });
    expect(per_environment.e1).toMatchObject({ rollouts_expected: 4, rollouts_recorded: 3, task_set: 2 });
    expect(per_environment.e2).toMatchObject({ rollouts_expected: 2, rollouts_recorded: 0, rollouts_failed: 1, mean_reward: null });
    expect('diagnostics' in per_agent.a!).toBe(false);
  });
});

describe('routedRepeats (NeMo Gym 0.7.0 num_repeats)', () => {
  const rows = [
    { agent: 'sm_a', basis: 'string_match' },
    { agent: 'sm_b', basis: 'string_match' },
    { agent: 'mcqa_agent', basis: 'mcqa_agent' },
  ];
  it('takes one number for every row, or a mapping: the dispatched agent first, then the routing key, then _default', () => {
    expect(routedRepeats(3, rows)).toEqual({ uniform: 3, problems: [], warnings: [] });
    expect(routedRepeats(undefined, rows)).toEqual({ problems: [], warnings: [] });
    expect(routedRepeats({ string_match: 2, sm_b: 4, _default: 1 }, rows)).toEqual({ perRow: [2, 4, 1], problems: [], warnings: [] });
    // A mapping that gives every row the same number is that number.
    expect(routedRepeats({ _default: 2 }, rows)).toEqual({ uniform: 2, problems: [], warnings: [] });
  });

  it('reports every row without an entry at once, and warns of keys no row has', () => {
    const r = routedRepeats({ sm_a: 2, sm_typo: 5 }, rows);
    expect(r.problems).toEqual(['num_repeats has no entry for routing key(s) mcqa_agent, sm_b / string_match and no _default; listed: sm_a, sm_typo']);
    expect(r.warnings).toEqual(['num_repeats names sm_typo, which no routed row has as its agent, agent_ref or task_source (a typo?)']);
    expect(routedRepeats({ sm_a: 0 }, rows).problems).toEqual(['num_repeats: a number ≥ 1, or a mapping of agent (or agent_ref / task_source) to a number ≥ 1, got {"sm_a":0}']);
  });
});
