// `gym dataset collate` over NeMo Gym configurations: declared datasets merged per type, every row validated
// against its environment and stamped with its declaring instance; bad rows all reported, nothing written.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { environmentNames } from '../../src/environments/registry';
import { stampedLine } from '../../src/datasets/collate';
import { resolveConfigRun } from '../../src/routing/from-config';
import { PACKAGE_ROOT } from '../../src/util/paths';
import { gymHere } from '../helpers/gym-here';
import { tempDir } from '../helpers/run';

const CONFIGS = path.resolve(import.meta.dirname, '../fixtures/nemo-gym-configs');
const NEMO = path.resolve(import.meta.dirname, '../fixtures/nemo-gym');
const rows = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

let dir: string;
beforeEach(async () => {
  dir = await tempDir('gymflow-collate-');
});

/** A configuration with one resources server and one agent per environment, each agent declaring `datasets`. */
function twoEnvConfig(datasets: Record<string, unknown[]>): string {
  const blocks = Object.entries(datasets).map(([env, ds]) => ({
    [`${env}_server`]: { resources_servers: { [env]: { entrypoint: 'app.py' } } },
    [`${env}_agent`]: {
      responses_api_agents: {
        simple_agent: { resources_server: { type: 'resources_servers', name: `${env}_server` }, model_server: { type: 'responses_api_models', name: 'policy_model' }, datasets: ds },
      },
    },
  }));
  const config = Object.assign({ policy_model: { responses_api_models: { openai_model: { openai_model: 'm' } } } }, ...blocks);
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, JSON.stringify(config)); // JSON is YAML
  return file;
}

describe('gym dataset collate', () => {
  it("collates NeMo Gym's own mcqa config: both example datasets, every row stamped with the agent that declares it", async () => {
    const out = path.join(dir, 'out');
    const r = await gymHere(['dataset', 'collate', '--config', 'resources_servers/mcqa/configs/mcqa.yaml', '--search-dir', CONFIGS, '--env-yaml', path.join(CONFIGS, 'env.yaml'), '--output-dir', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^example: 10 rows → .*example\.jsonl$/m);
    const source = [...rows(path.join(CONFIGS, 'resources_servers/mcqa/data/example.jsonl')), ...rows(path.join(CONFIGS, 'resources_servers/mcqa/data/example_with_template_metadata.jsonl'))];
    const collated = rows(path.join(out, 'example.jsonl'));
    expect(collated).toEqual(source.map((row) => ({ ...row, task_source: 'mcqa_simple_agent', agent_ref: { type: 'responses_api_agents', name: 'mcqa_simple_agent' } })));
  });

  it('merges the datasets of several environments into one file per type, each row to its own instance', async () => {
    const config = twoEnvConfig({
      mcqa: [{ name: 'example', type: 'example', jsonl_fpath: path.join(NEMO, 'mcqa/example.jsonl') }],
      example_multi_step: [{ name: 'example', type: 'example', jsonl_fpath: path.join(NEMO, 'example_multi_step/example.jsonl') }],
    });
    const out = path.join(dir, 'out');
    const r = await gymHere(['dataset', 'collate', '--config', config, '--output-dir', out]);
    expect(r.code, r.stderr).toBe(0);
    const collated = rows(path.join(out, 'example.jsonl'));
    const mcqa = rows(path.join(NEMO, 'mcqa/example.jsonl')).length;
    const multi = rows(path.join(NEMO, 'example_multi_step/example.jsonl')).length;
    expect(collated.map((row) => row.task_source)).toEqual([...Array(mcqa).fill('mcqa_agent'), ...Array(multi).fill('example_multi_step_agent')]);
    expect(collated.some((row) => '_ng_task_index' in row)).toBe(false);
  });

  it('writes each line of a dataset num_repeats times, which a --split run plays as repeats of one task, as NeMo Gym does', async () => {
    const config = twoEnvConfig({
      mcqa: [{ name: 'train', type: 'train', license: 'MIT', num_repeats: 3, jsonl_fpath: path.join(NEMO, 'mcqa/example.jsonl') }],
      string_match: [{ name: 'val', type: 'validation', license: 'MIT', jsonl_fpath: path.join(NEMO, 'string_match/example.jsonl') }],
    });
    const out = path.join(dir, 'out');
    const r = await gymHere(['dataset', 'collate', '--config', config, '--output-dir', out, '--mode', 'train_preparation']);
    expect(r.code, r.stderr).toBe(0);
    const source: Record<string, unknown>[] = rows(path.join(NEMO, 'mcqa/example.jsonl')).map((row) => ({
      ...row,
      task_source: 'mcqa_agent',
      agent_ref: { type: 'responses_api_agents', name: 'mcqa_agent' },
    }));
    // abc → aaabbbccc
    expect(rows(path.join(out, 'train.jsonl'))).toEqual(source.flatMap((row) => [row, row, row]));
    expect(rows(path.join(out, 'validation.jsonl'))).toHaveLength(rows(path.join(NEMO, 'string_match/example.jsonl')).length);
    expect(r.stdout).toContain(`mcqa_agent/train (train): ${source.length} rows from ${path.join(NEMO, 'mcqa/example.jsonl')}, each written 3 times (num_repeats)`);
    expect(r.stdout).toMatch(new RegExp(`^train: ${source.length * 3} rows → `, 'm'));

    // The run: each source row one task of 3 repeats, × the run's num_repeats when it has one.
    const request = { files: [config], overrides: [], envYaml: '/dev/null', cwd: PACKAGE_ROOT, env: {}, split: 'train' };
    for (const [runRepeats, expected] of [
      [undefined, 3],
      [2, 6],
    ] as const) {
      const run = await resolveConfigRun({ ...request, ...(runRepeats ? { overrides: [`+num_repeats=${runRepeats}`] } : {}) });
      expect(run.numRepeats ?? 1).toBe(1);
      const lines = run.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.map((l) => [l._ng_task_index, l._ng_rollout_index])).toEqual(source.flatMap((_, t) => Array.from({ length: expected }, (_, k) => [t * expected, k])));
      lines.forEach((l, i) => expect(l.responses_create_params).toEqual(source[Math.floor(i / expected)]!.responses_create_params));
      expect(run.summary).toContain(`identical rows are repeats of one task (a dataset's num_repeats): ${source.length * 3} tasks → ${source.length}`);
    }
  });

  it('reports every bad row with its file, line and field, and writes nothing', async () => {
    const good = readFileSync(path.join(NEMO, 'mcqa/example.jsonl'), 'utf8').split('\n')[0]!;
    const bad = path.join(dir, 'bad.jsonl');
    const noOptions = JSON.stringify({ ...JSON.parse(good), options: 'A' });
    writeFileSync(bad, Buffer.concat([Buffer.from(`${good}\n\n{not json\n${noOptions}\n`), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from(good)]));
    const config = twoEnvConfig({ mcqa: [{ name: 'example', type: 'example', jsonl_fpath: bad }] });
    const out = path.join(dir, 'out');
    const r = await gymHere(['dataset', 'collate', '--config', config, '--output-dir', out]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/collation found 3 problem\(s\); nothing was written/);
    expect(r.stderr).toContain(`${bad}:3: not valid JSON`);
    expect(r.stderr).toMatch(new RegExp(`${bad.replaceAll('.', '\\.')}:4: options`));
    expect(r.stderr).toContain(`${bad}:5: not valid UTF-8 (save the file as UTF-8)`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(path.join(out, 'example.jsonl'))).toBe(false);
  });

  it('refuses declarations it cannot use, naming the instance, the field and the file, all at once', async () => {
    const file = path.join(dir, 'c.yaml');
    writeFileSync(
      file,
      [
        'policy_model:',
        '  responses_api_models:',
        '    openai_model:',
        '      datasets: [{name: d, type: example, jsonl_fpath: x.jsonl}]',
        'srv:',
        '  resources_servers:',
        '    mcqa:',
        '      datasets:',
        '        - {name: t, type: train, jsonl_fpath: t.jsonl}',
        '        - {name: e, type: exmaple, jsonl_fpath: e.jsonl}',
        'other:',
        '  resources_servers:',
        '    not_an_env:',
        '      datasets: [{name: d, type: example, jsonl_fpath: x.jsonl}]',
      ].join('\n'),
    );
    const r = await gymHere(['dataset', 'collate', '--config', file, '--output-dir', path.join(dir, 'out')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${file}: policy_model.responses_api_models.openai_model.datasets: datasets are declared on agents or resources servers, not on responses_api_models`);
    expect(r.stderr).toContain(`${file}: srv.resources_servers.mcqa.datasets.0.license: a train or validation dataset needs a license`);
    expect(r.stderr).toMatch(/srv\.resources_servers\.mcqa\.datasets\.1\.type: Invalid option/);
    expect(r.stderr).toContain('other.resources_servers.not_an_env.datasets: resources server "other" is "not_an_env", which is not a Gymflow environment');
  });

  it('refuses --download, an unknown --mode, and a mode with no declared dataset', async () => {
    const config = twoEnvConfig({ mcqa: [{ name: 'example', type: 'example', jsonl_fpath: path.join(NEMO, 'mcqa/example.jsonl') }] });
    const base = ['dataset', 'collate', '--config', config, '--output-dir', path.join(dir, 'out')];
    expect((await gymHere([...base, '--download'])).stderr).toMatch(/--download: Gymflow never downloads datasets/);
    const mode = await gymHere([...base, '--mode', 'training']);
    expect(mode.code).toBe(2);
    expect(mode.stderr).toMatch(/--mode must be one of train_preparation, example_validation, benchmark, got "training"/);
    const none = await gymHere([...base, '--mode', 'train_preparation']);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/no declared dataset is of type train or validation \(mode train_preparation\); declared: mcqa_agent\/example \(example\)/);
  });
});

describe('gym env schema', () => {
  it.each(environmentNames())('prints a JSON Schema of an object for %s', async (name) => {
    const r = await gymHere(['env', 'schema', '--env', name]);
    expect(r.code, r.stderr).toBe(0);
    const schema = JSON.parse(r.stdout);
    // A row is an object, or one of several kinds of object (ruler2: multiple-choice or string-match rows).
    const alternatives = schema.anyOf ?? [schema];
    expect(alternatives.length).toBeGreaterThan(0);
    for (const alternative of alternatives) {
      expect(alternative.type).toBe('object');
      expect(alternative.properties).toHaveProperty('responses_create_params');
    }
  });

  it('names an unknown environment', async () => {
    const r = await gymHere(['env', 'schema', '--env', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--env: unknown environment "nope"; known: /);
  });
});

describe('stampedLine', () => {
  const stamp = { task_source: 'mcqa_agent', agent_ref: { type: 'responses_api_agents', name: 'mcqa_agent' } };
  it('appends the stamp to a row that has none of its keys, keeping the row as written', () => {
    const text = '{"responses_create_params": {"input": "hi"}, "score": 1.0}  ';
    const line = stampedLine(text, JSON.parse(text), stamp);
    expect(line).toBe('{"responses_create_params": {"input": "hi"}, "score": 1.0,"task_source":"mcqa_agent","agent_ref":{"type":"responses_api_agents","name":"mcqa_agent"}}');
    expect(JSON.parse(line)).toEqual({ responses_create_params: { input: 'hi' }, score: 1, ...stamp });
  });
  it("replaces a row's own task_source and agent_ref and drops the run's keys", () => {
    const text = JSON.stringify({ responses_create_params: { input: 'hi' }, task_source: 'old', _ng_task_index: 4, _ng_rollout_index: 1 });
    expect(JSON.parse(stampedLine(text, JSON.parse(text), stamp))).toEqual({ responses_create_params: { input: 'hi' }, ...stamp });
    const own = JSON.stringify({ agent_ref: { name: 'x' }, responses_create_params: { input: 'hi' } });
    expect(JSON.parse(stampedLine(own, JSON.parse(own), { task_source: 'mcqa' }))).toEqual({ agent_ref: { name: 'x' }, responses_create_params: { input: 'hi' }, task_source: 'mcqa' });
  });
});
