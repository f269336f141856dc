// `gym env list` says what each environment needs beyond the policy model: a judge, a sandboxed harness,
// bubblewrap on the worker, or parts that would need a download (reported unavailable here), and which are for evaluation only.
import { describe, expect, it } from 'vitest';
import { gymHere } from '../helpers/gym-here';

describe('gym env list', () => {
  it('marks judge, sandbox, jail and download needs, in the table and as JSON', async () => {
    const json = await gymHere(['env', 'list', '--json']);
    expect(json.code).toBe(0);
    const rows = new Map((JSON.parse(json.stdout) as { name: string; needs_judge: boolean; needs_sandbox: boolean; needs_jail: boolean; needs_download: string[] }[]).map((r) => [r.name, r]));
    expect(rows.get('mcqa')).toMatchObject({ needs_judge: false, needs_sandbox: false, needs_jail: false, needs_download: [] });
    // The model's code, checks or shell run in a bubblewrap jail on the worker.
    expect(
      [...rows.values()]
        .filter((r) => r.needs_jail)
        .map((r) => r.name)
        .sort(),
    ).toEqual(['agentif', 'aviary_bixbench', 'aviary_bixbench_hypothesis', 'code_gen', 'vcqa']);
    expect(rows.get('equivalence_llm_judge')).toMatchObject({ needs_judge: true, needs_sandbox: false });
    expect(rows.get('swe_repair')).toMatchObject({ needs_judge: false, needs_sandbox: true });
    expect(rows.get('terminal_bench_2_1')).toMatchObject({ needs_judge: false, needs_sandbox: true, needs_jail: false, evaluation_only: true });
    expect(rows.get('wmt_translation')!.needs_download).toContain('sentence_spbleu');
    expect(rows.get('finance_agent_v2')).toMatchObject({ needs_judge: true, needs_download: ['web_search', 'retrieve_information', 'price_history'] });
    expect(rows.get('vcqa')).toMatchObject({ needs_judge: true, needs_sandbox: false, needs_download: [] });
    // Only osworld drives a desktop VM's server.
    expect([...rows.values()].filter((r) => (r as { needs_desktop?: boolean }).needs_desktop).map((r) => r.name)).toEqual(['osworld']);

    // A harness plays it in a sandbox seeded with the task's files; two of its tasks are judge-graded.
    expect(rows.get('pinchbench')).toMatchObject({ needs_judge: true, needs_sandbox: true, needs_jail: false });
    expect(rows.get('pinchbench')!.needs_download[0]).toMatch(/PinchBench tasks/);

    // Benchmarks without a training split are for evaluation only; the rest may give training data.
    const evaluationOnly = [...rows.values()].filter((r) => (r as { evaluation_only?: boolean }).evaluation_only).map((r) => r.name);
    expect(evaluationOnly.sort()).toEqual(['agentif', 'deepswe', 'finance_agent_v2', 'finance_sec_search', 'longmemeval', 'pinchbench', 'swebench', 'terminal_bench_2_1', 'wmt_translation']);
    expect((rows.get('longmemeval') as { evaluation_only_reason?: string }).evaluation_only_reason).toMatch(/benchmark/);
    expect(rows.get('mcqa')).toMatchObject({ evaluation_only: false });

    const table = await gymHere(['env', 'list']);
    const line = (name: string) => table.stdout.split('\n').find((l) => l.startsWith(`${name} `))!;
    expect(line('mcqa')).toMatch(/^mcqa\s+train,eval\s+-\s/);
    expect(line('wmt_translation')).toMatch(/^wmt_translation\s+eval\s+download\s/);
    expect(line('swe_repair')).toMatch(/\ssandbox\s/);
    expect(line('terminal_bench_2_1')).toMatch(/^terminal_bench_2_1\s+eval\s+sandbox\s/);
    expect(line('vcqa')).toMatch(/\sjudge,jail\s/);
    expect(line('finance_agent_v2')).toMatch(/\sjudge,download\s/);
    expect(line('osworld')).toMatch(/^osworld\s+train,eval\s+desktop\s/);
    expect(table.stdout).toContain('desktop = an OSWorld desktop VM server (--env-option desktop_url)');
    expect(line('pinchbench')).toMatch(/^pinchbench\s+eval\s+judge,sandbox,download\s/);
  });
});
