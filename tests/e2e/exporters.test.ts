// Exporters against the real things: a finished run lands in a real `mlflow server` (PyPI's mlflow, SQLite
// store, served artifacts) with its settings, metrics and rollouts, and in a W&B offline run folder written
// by the real `wandb` library and read back with wandb's own record schema; an exporter with nothing
// listening is reported and the run still succeeds; `gym eval export` sends a finished run again.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportersConfig } from '../../src/exporters/config';
import { ExportsReport, exportRun } from '../../src/exporters/run-exports';
import { WANDB_VENV_PYTHON } from '../../src/exporters/wandb';
import { runWorkflowId } from '../../workflows/definitions';
import { gym } from '../helpers/gym-cli';
import { captureRunHistories } from '../helpers/histories';
import { startMlflowServer, type MlflowServer } from '../helpers/mlflow-server';
import { releasePort, reservePort } from '../helpers/ports';
import { runConfig, runInProcess, tempDir } from '../helpers/run';
import { startTestServer, type TestServer } from '../helpers/temporal-server';
import { filesUnder } from '../helpers/files';

const INPUT = path.resolve(import.meta.dirname, '../../src/environments/mcqa/data/example.jsonl');
const READ_WANDB = path.resolve(import.meta.dirname, '../exporters/read_wandb_run.py');
const SECRET = 'gymflow-test-mlflow-token-5f1c2e';

interface MlflowRun {
  info: { run_id: string; run_name: string; status: string; experiment_id: string };
  data: { params: { key: string; value: string }[]; metrics: { key: string; value: number }[]; tags: { key: string; value: string }[] };
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const readExports = (runDir: string) => ExportsReport.parse(readJson(path.join(runDir, 'exports.json')));

let server: TestServer;
let mlflow: MlflowServer;
let env: Record<string, string>;
beforeAll(async () => {
  [server, mlflow] = await Promise.all([startTestServer(), startMlflowServer()]);
  env = { TEMPORAL_ADDRESS: server.address, GYMFLOW_HOME: server.dir };
  process.env.GYMFLOW_TEST_MLFLOW_TOKEN = SECRET;
}, 200_000);
afterAll(async () => {
  await Promise.all([mlflow?.stop(), server?.stop()]);
});

async function mlflowRun(runId: string): Promise<MlflowRun> {
  return (await mlflow.api<{ run: MlflowRun }>(`/api/2.0/mlflow/runs/get?run_id=${runId}`)).run;
}

async function mlflowArtifact(run: MlflowRun, name: string): Promise<string> {
  const res = await fetch(`${mlflow.url}/api/2.0/mlflow-artifacts/artifacts/${run.info.experiment_id}/${run.info.run_id}/artifacts/${name}`);
  expect(res.status).toBe(200);
  return res.text();
}

async function mlflowArtifactNames(run: MlflowRun): Promise<string[]> {
  const listed = await mlflow.api<{ files?: { path: string }[] }>(`/api/2.0/mlflow/artifacts/list?run_id=${run.info.run_id}`);
  return (listed.files ?? []).map((f) => f.path).sort();
}

describe('a finished run with MLflow and W&B exporters', () => {
  let runDir: string;

  it('is in the MLflow server with its settings, every metric and its files', async () => {
    runDir = await tempDir('gymflow-export-');
    const config = {
      ...runConfig({ runDir, envName: 'mcqa', inputFile: INPUT, numRepeats: 3, concurrency: 2, model: { accuracy: 0.5, seed: 11 } }),
      exporters: ExportersConfig.parse({ mlflow: { tracking_uri: mlflow.url, experiment: 'gymflow-e2e', token_env: 'GYMFLOW_TEST_MLFLOW_TOKEN' }, wandb: { project: 'gymflow-e2e' } }),
    };
    const result = await runInProcess(server, config);
    expect(result.metrics.rollouts_recorded).toBe(15);

    const report = readExports(runDir);
    expect(report.exporters.mlflow).toMatchObject({ status: 'ok' });
    const run = await mlflowRun(report.exporters.mlflow!.run_id!);
    expect(run.info).toMatchObject({ run_name: config.runId, status: 'FINISHED' });
    expect(report.exporters.mlflow!.target).toBe(`${mlflow.url}/#/experiments/${run.info.experiment_id}/runs/${run.info.run_id}`);

    const params = Object.fromEntries(run.data.params.map((p) => [p.key, p.value]));
    expect(params).toMatchObject({ 'env.name': 'mcqa', numRepeats: '3', concurrency: '2', 'model.backend': 'mock', 'model.accuracy': '0.5', 'model.seed': '11', run_id: config.runId });
    expect(Object.keys(params).some((k) => k.startsWith('exporters'))).toBe(false);
    expect(run.data.tags).toContainEqual({ key: 'gymflow.run_id', value: config.runId });

    const metricsJson = readJson(path.join(runDir, 'metrics.json'));
    const metrics = Object.fromEntries(run.data.metrics.map((m) => [m.key, m.value]));
    for (const [key, value] of Object.entries(metricsJson)) if (typeof value === 'number') expect(metrics[key], key).toBe(value);
    expect(metrics['ci95_reward/0']).toBe(metricsJson.ci95_reward[0]);
    expect(metrics['ci95_reward/1']).toBe(metricsJson.ci95_reward[1]);
    for (const k of [1, 2, 3]) expect(metrics[`pass_at_k/pass_at_${k}`], `pass@${k}`).toBe(metricsJson.pass_at_k[`pass@${k}`]);

    expect(await mlflowArtifactNames(run)).toEqual(['failures.jsonl', 'metrics.json', 'rollouts.jsonl']);
    const rollouts = readFileSync(path.join(runDir, 'rollouts.jsonl'), 'utf8');
    expect(rollouts.trim().split('\n')).toHaveLength(15);
    expect(await mlflowArtifact(run, 'rollouts.jsonl')).toBe(rollouts);

    // The token went to the server by reference only: no file of the run and no history holds it.
    for (const file of filesUnder(runDir)) expect(readFileSync(file, 'utf8').includes(SECRET), file).toBe(false);
    const histories = await captureRunHistories(await server.client(), runWorkflowId(config.runId));
    expect(histories.length).toBeGreaterThan(0);
    for (const h of histories) expect(h.json.includes(SECRET), h.workflowId).toBe(false);

    // A finalize retried for the same workflow execution does not export the run twice.
    const retried = await exportRun({ runDir, workflowRunId: report.exporters.mlflow!.workflow_run_id });
    expect(retried).toEqual(report);
    const searched = await mlflow.api<{ runs: MlflowRun[] }>('/api/2.0/mlflow/runs/search', { experiment_ids: [run.info.experiment_id] });
    expect(searched.runs.map((r) => r.info.run_id)).toEqual([run.info.run_id]);
  });

  it('is a W&B offline run folder that the wandb library reads back and `wandb sync` would upload', async () => {
    const report = readExports(runDir);
    expect(report.exporters.wandb).toMatchObject({ status: 'ok' });
    const folder = report.exporters.wandb!.target!;
    expect(path.dirname(folder)).toBe(path.join(runDir, 'wandb'));
    expect(path.basename(folder)).toMatch(new RegExp(`^offline-run-\\d{8}_\\d{6}-${report.exporters.wandb!.run_id}$`));
    const file = readdirSync(folder).find((f) => f.endsWith('.wandb'))!;
    const { stdout } = await promisify(execFile)(WANDB_VENV_PYTHON, [READ_WANDB, path.join(folder, file)]);
    const logged = JSON.parse(stdout) as {
      run: { project: string; name: string };
      config: Record<string, unknown>;
      history: Record<string, unknown>;
      summary: Record<string, unknown>;
      files: string[];
    };
    const manifest = readJson(path.join(runDir, 'manifest.json'));
    expect(logged.run).toMatchObject({ project: 'gymflow-e2e', name: manifest.run_id });
    expect(logged.config).toMatchObject({ 'env.name': 'mcqa', numRepeats: '3', identity: manifest.identity });
    const metricsJson = readJson(path.join(runDir, 'metrics.json'));
    for (const [key, value] of Object.entries(metricsJson)) if (typeof value === 'number') expect(logged.history[key], key).toBe(value);
    expect(logged.summary['pass_at_k/pass@2']).toBe(metricsJson.pass_at_k['pass@2']);
    expect(logged.files).toEqual(expect.arrayContaining(['metrics.json', 'failures.jsonl', 'rollouts.jsonl']));
    expect(readFileSync(path.join(folder, 'files', 'rollouts.jsonl'), 'utf8')).toBe(readFileSync(path.join(runDir, 'rollouts.jsonl'), 'utf8'));

    const sync = await promisify(execFile)(path.join(path.dirname(WANDB_VENV_PYTHON), 'wandb'), ['sync', '--dry-run', folder], { env: { ...process.env, WANDB_MODE: 'offline' } });
    expect(sync.stdout + sync.stderr).toMatch(/Would sync 1 run/);
  });

  it('is sent again by `gym eval export`, as a new MLflow run, here without its rollouts', async () => {
    const first = readExports(runDir).exporters.mlflow!.run_id!;
    const r = await gym(['eval', 'export', runDir, '--to', 'mlflow', '--mlflow-tracking-uri', mlflow.url, '--mlflow-experiment', 'gymflow-e2e', '--upload-rollouts-to-wandb', 'false'], {});
    expect(r.stderr.match(/upload_rollouts_to_wandb` is deprecated/g)).toHaveLength(1);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^export mlflow: ok → http:\/\/127\.0\.0\.1:\d+\/#\/experiments\/\d+\/runs\/\w+ \(metrics\.json, failures\.jsonl\)$/m);
    const again = readExports(runDir);
    expect(again.exporters.mlflow!.run_id).not.toBe(first);
    expect(again.exporters.wandb).toEqual(readExports(runDir).exporters.wandb);
    const run = await mlflowRun(again.exporters.mlflow!.run_id!);
    expect(await mlflowArtifactNames(run)).toEqual(['failures.jsonl', 'metrics.json']);
    expect(run.data.metrics.find((m) => m.key === 'mean_reward')?.value).toBe(readJson(path.join(runDir, 'metrics.json')).mean_reward);
  });
});

describe('an exporter with nothing listening', () => {
  it('is reported by `gym eval run` and in exports.json, and the run still succeeds', async () => {
    const port = await reservePort();
    try {
      const dir = await tempDir('gymflow-export-down-');
      const out = path.join(dir, 'run');
      const yaml = path.join(dir, 'eval.yaml');
      writeFileSync(
        yaml,
        ['env: mcqa', 'model: mock', `input: ${INPUT}`, 'output: run', 'num_repeats: 2', 'exporters:', '  upload_rollouts: false', '  mlflow:', `    tracking_uri: http://127.0.0.1:${port}`].join(
          '\n',
        ) + '\n',
      );
      const r = await gym(['eval', 'run', '--config', yaml], env);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/rollouts: 10\/10 recorded/);
      expect(r.stdout).toMatch(new RegExp(`export mlflow: FAILED \\(UNREACHABLE\\): no MLflow tracking server answers at http://127\\.0\\.0\\.1:${port}`));
      const report = readExports(out);
      expect(report.exporters.mlflow).toMatchObject({ status: 'failed', uploaded: [], error: { code: 'UNREACHABLE' } });
      expect(readJson(path.join(out, 'metrics.json')).rollouts_recorded).toBe(10);

      const again = await gym(['eval', 'export', out], {});
      expect(again.code).toBe(5);
      expect(again.stdout).toMatch(/export mlflow: FAILED \(UNREACHABLE\)/);
      expect(again.stderr).toMatch(/1 of 1 exports failed/);
    } finally {
      releasePort(port);
    }
  });
});
