// The run report as one self-contained HTML page: headline, charts and tables rendered here; failures and
// rollouts embedded as compact gzip'd JSON that the page's script pages through and searches on demand.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { PACKAGE_ROOT } from '../util/paths';
import { escapeHtml, histogramSvg, lineSvg } from './charts';
import type { RunData } from './read-run';
import { DIMENSIONS, SERIES_LABELS, groupTable, histogram, passAtKCurve, seriesValues, type GroupRow } from './summarize';

const PAGE_DIR = path.join(PACKAGE_ROOT, 'src/report/page');

const fmt = (x: unknown, digits = 4) => (typeof x === 'number' && Number.isFinite(x) ? (Number.isInteger(x) ? String(x) : x.toFixed(digits)) : 'n/a');
/** Rewards, rates and intervals: always four decimals, as the CLI summary shows them. */
const rate = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(4) : 'n/a');
const isInterval = (v: unknown): v is [number, number] => Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number');
const interval = (v: unknown) => (isInterval(v) ? `[${rate(v[0])}, ${rate(v[1])}]` : 'n/a');

/** A headline figure: its metrics.json key (for the page and its tests), label and shown value. */
function figure(key: string, label: string, value: string): string {
  return `<div class="figure"><dt>${escapeHtml(label)}</dt><dd data-key="${escapeHtml(key)}">${escapeHtml(value)}</dd></div>`;
}

/** The headline: the figures every run has, then any other confidence interval metrics.json holds. */
function headline(m: Record<string, unknown>): string {
  const figures = [
    figure('mean_reward', 'mean reward', rate(m.mean_reward)),
    figure('ci95_reward', '95% CI', interval(m.ci95_reward)),
    figure('std_reward', 'std', rate(m.std_reward)),
    figure('rollouts_recorded', 'recorded', `${fmt(m.rollouts_recorded)} / ${fmt(m.rollouts_expected)}`),
    figure('rollouts_failed', 'failed', fmt(m.rollouts_failed)),
    figure('coverage', 'coverage', typeof m.coverage === 'number' ? `${(m.coverage * 100).toFixed(1)}%` : 'n/a'),
    figure('tasks', 'tasks', fmt(m.tasks)),
  ];
  for (const [key, v] of Object.entries(m)) if (key !== 'ci95_reward' && /ci/i.test(key) && isInterval(v)) figures.push(figure(key, key.replace(/_/g, ' '), interval(v)));
  const curve = passAtKCurve(m);
  const shown = curve.length <= 4 ? curve : [curve[0]!, curve[1]!, curve[Math.floor(curve.length / 2)]!, curve.at(-1)!];
  for (const p of shown) figures.push(figure(`pass@${p.k}`, `pass@${p.k}`, rate(p.value)));
  return `<dl class="headline">${figures.join('')}</dl>`;
}

function groupSection(title: string, rows: GroupRow[], seriesKeys: string[]): string {
  const head = ['', 'rollouts', 'tasks', 'mean reward', 'std', '95% CI', 'pass@1', ...seriesKeys.map((k) => `mean ${SERIES_LABELS[k] ?? k}`)];
  const body = rows.map((r) => {
    const m = r.metrics;
    const cells = [m.rollouts_recorded, m.tasks, rate(m.mean_reward), rate(m.std_reward), interval(m.ci95_reward), rate(m.pass_at_k['pass@1']), ...seriesKeys.map((k) => fmt(r.seriesMeans[k], 1))];
    return `<tr><th>${escapeHtml(r.label)}</th>${cells.map((c) => `<td>${escapeHtml(String(c))}</td>`).join('')}</tr>`;
  });
  return `<h3>by ${title}</h3><table class="groups"><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${body.join('')}</tbody></table>`;
}

/** metrics.json flattened to dotted keys, so every figure it holds (including ones added later) is listed. */
function flatten(value: unknown, prefix: string, out: [string, string][]): void {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (!entries.length) out.push([prefix, '{}']);
    for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (Array.isArray(value) && value.every((x) => typeof x === 'number')) out.push([prefix, `[${value.map((x) => fmt(x)).join(', ')}]`]);
  else out.push([prefix, typeof value === 'number' ? fmt(value) : JSON.stringify(value)]);
}

function healthSection(run: RunData): string {
  const { summary, verdicts } = run.health;
  if (!summary && !verdicts) return `<p class="muted" data-health="not-computed">Health checks: not computed (run <code>gym eval health-check ${escapeHtml(run.dir)}</code>).</p>`;
  const counts = new Map<string, number>();
  for (const v of verdicts?.values() ?? []) counts.set(v.verdict, (counts.get(v.verdict) ?? 0) + 1);
  const rows: [string, string][] = [];
  if (summary) flatten(summary, '', rows);
  const table = rows.length ? `<table class="kv">${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>` : '';
  const verdictLine = verdicts
    ? `<p data-health="verdicts">Rollout verdicts: ${[...counts.entries()].map(([k, n]) => `<span class="verdict v-${escapeHtml(k)}">${escapeHtml(k)} ${n}</span>`).join(' ')}</p>`
    : '<p class="muted">Rollout verdicts: not computed.</p>';
  return verdictLine + table;
}

/** Strings repeated across rows (reasons, labels, classes) are stored once and referred to by index. */
class Strings {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();
  id(s: string | null | undefined): number {
    if (s === null || s === undefined) return -1;
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(s);
      this.index.set(s, i);
    }
    return i;
  }
}

/** The rows the page's script pages and searches, column by column. */
export function pageData(run: RunData): Buffer {
  const s = new Strings();
  const v = run.health.verdicts;
  const r = run.rollouts;
  const verdictOf = (id: string) => s.id(v?.get(id)?.verdict);
  const data = {
    strings: s.list,
    transcriptChars: run.transcriptChars,
    prompts: Object.fromEntries(run.prompts),
    rollouts: {
      id: r.map((x) => x.id),
      task: r.map((x) => x.task),
      repeat: r.map((x) => x.repeat),
      reward: r.map((x) => x.reward),
      reason: r.map((x) => s.id(x.failureReason)),
      environment: r.map((x) => s.id(x.environment)),
      agent: r.map((x) => s.id(x.agent)),
      model: r.map((x) => s.id(x.model)),
      verdict: r.map((x) => verdictOf(x.id)),
      verdictDetail: r.map((x) => v?.get(x.id)?.detail ?? ''),
      transcript: r.map((x) => x.transcript),
    },
    failures: {
      id: run.failures.map((x) => x.id),
      task: run.failures.map((x) => x.task),
      repeat: run.failures.map((x) => x.repeat),
      failureClass: run.failures.map((x) => s.id(x.failureClass)),
      stage: run.failures.map((x) => s.id(x.stage)),
      attempt: run.failures.map((x) => x.attempt),
      message: run.failures.map((x) => x.message),
      failedAt: run.failures.map((x) => x.failedAt),
      verdict: run.failures.map((x) => verdictOf(x.id)),
      transcript: run.failures.map((x) => x.transcript),
    },
  };
  return gzipSync(JSON.stringify(data), { level: 6 });
}

export function renderReport(run: RunData, generatedAt = new Date()): string {
  const m = run.metrics;
  const cfg = run.manifest?.config;
  const title = `Gymflow report: ${run.manifest?.run_id ?? path.basename(run.dir)}`;
  const series = seriesValues(run.rollouts);
  const charts = [histogramSvg('reward distribution', histogram(run.rollouts.map((x) => x.reward)))];
  const curve = passAtKCurve(m);
  if (curve.length) charts.push(lineSvg('pass@k', curve));
  // A series with one value on every rollout (no sandbox, no tools) is a line of text, not a chart.
  const constant: string[] = [];
  for (const [key, values] of series) {
    const h = histogram(values);
    if (h.counts.length === 1) constant.push(`${SERIES_LABELS[key] ?? key}: ${h.labels[0]}`);
    else charts.push(histogramSvg(SERIES_LABELS[key] ?? key, h));
  }
  const seriesKeys = [...series.keys()].filter((k) => k === 'output_tokens' || k.startsWith('latency_total') || (k === 'latency_model_ms' && !series.has('latency_total_ms')));
  const flat: [string, string][] = [];
  flatten(m, '', flat);
  const latencyNote = {
    diagnostics: "Latency and tokens from each rollout's diagnostics (<code>_gf_diagnostics</code>).",
    model_calls: "Latency is each rollout's summed model call time from <code>model_calls/</code>; tokens from the response usage (this run has no per-rollout diagnostics).",
    none: 'No latency was recorded for this run.',
  }[run.latencySource];
  const meta = [
    ['environment', cfg ? (run.rollouts[0]?.environment ?? cfg.env.name) : 'unknown'],
    ['model', cfg ? (cfg.model.backend === 'mock' ? cfg.model.backend : `${cfg.model.backend} ${cfg.model.model}`) : 'unknown'],
    ['repeats', cfg ? String(cfg.numRepeats) : 'unknown'],
    ['started', run.manifest?.created_at ?? 'unknown'],
    ['report written', generatedAt.toISOString()],
    ['folder', run.dir],
  ];
  const css = readFileSync(path.join(PAGE_DIR, 'report.css'), 'utf8');
  const js = readFileSync(path.join(PAGE_DIR, 'report.js'), 'utf8');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title><style>${css}</style></head>
<body>
<header><h1>${escapeHtml(title)}</h1><p class="meta">${meta.map(([k, v]) => `<span><b>${escapeHtml(k!)}</b> ${escapeHtml(v!)}</span>`).join(' ')}</p></header>
<section id="headline"><h2>Headline</h2>${headline(m)}</section>
<section id="charts"><h2>Distributions</h2><div class="charts">${charts.join('')}</div><p class="muted">${latencyNote}${constant.length ? ` The same on every rollout: ${escapeHtml(constant.join(', '))}.` : ''}</p></section>
<section id="groups"><h2>By environment, agent and model</h2>${DIMENSIONS.map((d) => groupSection(d, groupTable(run.rollouts, d), seriesKeys)).join('')}</section>
<section id="health"><h2>Health</h2>${healthSection(run)}</section>
<section id="failures" class="rows" data-kind="failures"><h2>Failures <small>(failures.jsonl: rollouts that exhausted their retries)</small></h2></section>
<section id="rollouts" class="rows" data-kind="rollouts"><h2>Rollouts <small>(transcripts cut to ${run.transcriptChars} characters; the whole record is in rollouts.jsonl)</small></h2></section>
<section id="all-metrics"><h2>metrics.json</h2><table class="kv">${flat.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td data-key="${escapeHtml(k)}">${escapeHtml(v)}</td></tr>`).join('')}</table></section>
<script type="application/octet-stream" id="gf-data">${pageData(run).toString('base64')}</script>
<script>${js}</script>
</body></html>
`;
}
