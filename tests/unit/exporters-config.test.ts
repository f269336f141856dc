// Exporter settings from flags and the eval YAML: what they resolve to, the deprecated
// `upload_rollouts_to_wandb` (one warning), secrets only by variable name, and what an exporter is sent.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRunConfig } from '../../src/cli/commands/eval-run';
import { readConfigFile } from '../../src/cli/config-file';
import { exportersFromFlags } from '../../src/exporters/config';
import { mlflowKey } from '../../src/exporters/mlflow';
import { numericMetrics, runParams } from '../../src/exporters/source';
import { buildManifest, runIdentity } from '../../src/runs/manifest';

const INPUT = path.resolve(import.meta.dirname, '../../src/environments/mcqa/data/example.jsonl');
const KNOWN = new Set([
  'env',
  'model',
  'input',
  'output',
  'num-repeats',
  'upload-rollouts',
  'upload-rollouts-to-wandb',
  'mlflow-tracking-uri',
  'mlflow-experiment',
  'mlflow-run-name',
  'mlflow-token-env',
  'wandb-project',
  'wandb-entity',
  'wandb-name',
  'wandb-mode',
  'wandb-api-key-env',
  'wandb-python',
]);

function yamlConfig(lines: string[]) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gymflow-exporters-'));
  const file = path.join(dir, 'eval.yaml');
  writeFileSync(file, [`env: mcqa`, 'model: mock', `input: ${INPUT}`, 'output: run', ...lines].join('\n') + '\n');
  const warnings: string[] = [];
  const run = () => buildRunConfig(readConfigFile(file, KNOWN), (m) => warnings.push(m));
  return { run, warnings };
}

describe('exporter settings', () => {
  it('come from the `exporters:` section of the eval YAML, with defaults filled in', () => {
    const { run, warnings } = yamlConfig([
      'exporters:',
      '  upload_rollouts: false',
      '  mlflow:',
      '    tracking_uri: http://mlflow.example:5000',
      '    token_env: MLFLOW_TOKEN',
      '  wandb:',
      '    project: evals',
    ]);
    expect(run().exporters).toEqual({
      upload_rollouts: false,
      mlflow: { tracking_uri: 'http://mlflow.example:5000', experiment: 'gymflow', token_env: 'MLFLOW_TOKEN' },
      wandb: { project: 'evals', mode: 'offline', api_key_env: 'WANDB_API_KEY' },
    });
    expect(warnings).toEqual([]);
  });

  it('are absent when no exporter is set up, and rollouts are uploaded by default', () => {
    expect(yamlConfig([]).run().exporters).toBeUndefined();
    expect(exportersFromFlags({ 'wandb-project': 'p' }, () => {})?.upload_rollouts).toBe(true);
  });

  it('accept the old `upload_rollouts_to_wandb`, with exactly one deprecation warning', () => {
    const inSection = yamlConfig(['exporters:', '  upload_rollouts_to_wandb: false', '  wandb: { project: p }']);
    expect(inSection.run().exporters?.upload_rollouts).toBe(false);
    expect(inSection.warnings).toHaveLength(1);
    expect(inSection.warnings[0]).toMatch(/`upload_rollouts_to_wandb` is deprecated: use `upload_rollouts`/);
    // NeMo Gym configs carry it at the top level; the new name wins when both are given.
    const both = yamlConfig(['upload_rollouts_to_wandb: false', 'upload_rollouts: true', 'exporters: { wandb: { project: p } }']);
    expect(both.run().exporters?.upload_rollouts).toBe(true);
    expect(both.warnings).toHaveLength(1);
  });

  it('take secrets only as the name of an environment variable', () => {
    expect(() => exportersFromFlags({ 'mlflow-tracking-uri': 'http://x', 'mlflow-token-env': 'dapi-0123-secret' }, () => {})).toThrow(/--mlflow-token-env: give the name of an environment variable/);
    expect(() => exportersFromFlags({ 'wandb-api-key-env': 'sk key' }, () => {})).toThrow(/--wandb-api-key-env/);
  });

  it('name the setting that is wrong or missing', () => {
    expect(yamlConfig(['exporters:', '  mlflow:', '    uri: http://x']).run).toThrow(/unknown setting "exporters\.mlflow\.uri"; known: tracking_uri, experiment, run_name, token_env/);
    expect(() => exportersFromFlags({ 'mlflow-experiment': 'e' }, () => {})).toThrow(/--mlflow-tracking-uri/);
    expect(() => exportersFromFlags({ 'mlflow-tracking-uri': 'ftp://x' }, () => {})).toThrow(/--mlflow-tracking-uri: an http\(s\) URL/);
    expect(() => exportersFromFlags({ 'wandb-mode': 'cloud' }, () => {})).toThrow(/--wandb-mode/);
    expect(() => exportersFromFlags({ 'wandb-project': 'p', 'upload-rollouts': 'yes' }, () => {})).toThrow(/--upload-rollouts must be true or false/);
  });

  it('are not part of the run identity, so a run resumes with other exporters', () => {
    const config = yamlConfig([]).run();
    const exported = { ...config, exporters: exportersFromFlags({ 'wandb-project': 'p' }, () => {}) };
    expect(runIdentity(exported, 'h')).toBe(runIdentity(config, 'h'));
  });
});

describe('what an exporter is sent', () => {
  it('params: the resolved settings, flat, without exporter settings or inline secrets', () => {
    const config = yamlConfig(['num_repeats: 4', 'exporters: { wandb: { project: p } }']).run();
    const manifest = buildManifest({ ...config, env: { name: 'mcqa', options: { judge_api_key: 'sk-inline', prompt_style: 'letters' } } }, 'wf', 'hash');
    const params = runParams(manifest);
    expect(params).toMatchObject({
      'env.name': 'mcqa',
      'env.options.prompt_style': 'letters',
      numRepeats: '4',
      concurrency: '8',
      'model.backend': 'mock',
      dataset_hash: 'hash',
      'retry.maximumAttempts': '3',
    });
    expect(Object.keys(params).filter((k) => k.startsWith('exporters') || k.includes('api_key'))).toEqual([]);
  });

  it('metrics: every finite number in metrics.json, nested maps and lists included', () => {
    const metrics = { mean_reward: 0.5, ci95_reward: [0.25, 0.75], pass_at_k: { 'pass@1': 0.5 }, std_reward: null, label: 'x', nested: { deep: { n: 3 } } };
    expect(numericMetrics(metrics)).toEqual({ mean_reward: 0.5, 'ci95_reward/0': 0.25, 'ci95_reward/1': 0.75, 'pass_at_k/pass@1': 0.5, 'nested/deep/n': 3 });
  });

  it('MLflow names: pass@k spelled out, other characters MLflow rejects replaced, at most 250 characters', () => {
    expect(mlflowKey('pass_at_k/pass@1')).toBe('pass_at_k/pass_at_1');
    expect(mlflowKey('reward (by task)#2')).toBe('reward _by task__2');
    expect(mlflowKey('/a//../b/')).toBe('a/__/b');
    const long = mlflowKey(`head_${'x'.repeat(300)}_tail`);
    expect(long).toHaveLength(250);
    expect(long.startsWith('head_')).toBe(true);
    expect(long.endsWith('_tail')).toBe(true);
  });
});
