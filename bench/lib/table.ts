// Turns the JSON lines the benchmark scripts print into the Markdown table docs/benchmarks.md records,
// so the figures in the doc are copied by a program, not by hand.
//   node --import tsx bench/lib/table.ts results.jsonl [more.jsonl …]
import { readFile } from 'node:fs/promises';
import { GymError } from '../../src/errors';
import { runMain } from './flags';
import type { CaseResult } from './cases';

interface BenchLine {
  bench: string;
  date: string;
  command: string;
  cases: CaseResult[];
}

const fmt = (v: number | undefined, digits = 1) => (v === undefined ? '' : v.toFixed(digits));

export function renderTable(lines: BenchLine[]): string {
  const rows = lines.flatMap((line) =>
    line.cases.map((c) => {
      const m = c.median;
      const params = Object.entries(c.params)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ');
      const rates = c.runs.map((r) => fmt(r.per_second)).join(' / ');
      const cpuPerUnit = m.cpu_ms_per_rollout ?? (m.bench_cpu_seconds !== undefined ? ((m.bench_cpu_seconds + (m.server_cpu_seconds ?? 0)) * 1000) / m.units! : undefined);
      const rss = m.peak_rss_mib ?? m.bench_rss_mib;
      return `| ${line.bench} | ${c.case} | ${params} | **${fmt(m.per_second)}** ${c.unit}/s | ${rates} | ${fmt(cpuPerUnit, 2)} | ${fmt(rss, 0)} | ${fmt(c.load.before)} → ${fmt(c.load.after)} |`;
    }),
  );
  return ['| bench | case | parameters | median | runs | CPU ms/unit | RSS MiB | load (1 min) |', '|---|---|---|---|---|---|---|---|', ...rows].join('\n');
}

runMain(async () => {
  const files = process.argv.slice(2);
  if (files.length === 0) throw new GymError('BAD_FLAG', 'usage: node --import tsx bench/lib/table.ts results.jsonl [more.jsonl …]');
  const lines: BenchLine[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => {
      throw new GymError('NOT_FOUND', `no results file ${file}`);
    });
    text.split('\n').forEach((l, i) => {
      if (!l.trim().startsWith('{')) return;
      try {
        lines.push(JSON.parse(l) as BenchLine);
      } catch {
        throw new GymError('BAD_INPUT', `${file} line ${i + 1} is not JSON`);
      }
    });
  }
  process.stdout.write(`${renderTable(lines)}\n`);
});
