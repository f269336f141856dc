// The run report as a reader sees it: `gym eval report` on run folders, opened in headless Chromium (the
// Debian package), checked for metrics.json's numbers, health verdicts, searchable failures and paging.
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { evalReport } from '../../src/cli/commands/eval-report';
import { launchChromium } from '../helpers/chromium';
import { writeSyntheticRun } from '../helpers/synthetic-run';

const FAILED: Record<string, string> = {
  '3-1': 'HTTP 502 from upstream: the upstream is overloaded',
  '17-2': 'verify crashed: the grader returned malformed JSON',
};

const lines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

let context: BrowserContext;
let withHealth: string;
let withDiagnostics: string;
const requested: string[] = [];

async function open(dir: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`file://${path.join(dir, 'report.html')}`);
  await page.waitForSelector('body[data-ready]');
  expect(await page.getAttribute('body', 'data-ready')).toBe('true');
  return page;
}

const text = (page: Page, selector: string) => page.locator(selector).first().innerText();

beforeAll(async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'gymflow-report-'));
  withHealth = path.join(root, 'with-health');
  withDiagnostics = path.join(root, 'with-diagnostics');
  await writeSyntheticRun(withHealth, { tasks: 30, repeats: 4, health: true, failed: (t, r) => FAILED[`${t}-${r}`] });
  await writeSyntheticRun(withDiagnostics, { tasks: 12, repeats: 2, diagnostics: true, seed: 11 });
  const said: string[] = [];
  for (const dir of [withHealth, withDiagnostics]) await evalReport([dir], pino({ level: 'silent' }), (l) => said.push(l));
  expect(said[0]).toBe(`report: ${path.join(withHealth, 'report.html')} (118 rollouts, 2 failures)`);
  context = await launchChromium();
  context.on('request', (r) => requested.push(r.url()));
});

afterAll(async () => {
  await context?.close();
});

describe('gym eval report, in Chromium', () => {
  it('shows the headline numbers of metrics.json and the pass@k curve', async () => {
    const metrics = JSON.parse(await readFile(path.join(withHealth, 'metrics.json'), 'utf8'));
    const page = await open(withHealth);
    expect(await text(page, 'dd[data-key="mean_reward"]')).toBe(metrics.mean_reward.toFixed(4));
    expect(await text(page, 'dd[data-key="std_reward"]')).toBe(metrics.std_reward.toFixed(4));
    expect(await text(page, 'dd[data-key="ci95_reward"]')).toBe(`[${metrics.ci95_reward[0].toFixed(4)}, ${metrics.ci95_reward[1].toFixed(4)}]`);
    expect(await text(page, 'dd[data-key="rollouts_recorded"]')).toBe('118 / 120');
    expect(await text(page, 'dd[data-key="rollouts_failed"]')).toBe('2');
    expect(await text(page, 'dd[data-key="pass@1"]')).toBe(metrics.pass_at_k['pass@1'].toFixed(4));
    expect(await text(page, 'dd[data-key="pass@4"]')).toBe(metrics.pass_at_k['pass@4'].toFixed(4));
    expect(await page.locator('svg[aria-label="pass@k"] circle').count()).toBe(Object.keys(metrics.pass_at_k).length);
    expect(await page.locator('svg[aria-label="reward distribution"] rect').count()).toBe(2);
    // No diagnostics in these records: latency comes from the model call log.
    expect(await page.locator('svg[aria-label="model latency (ms)"]').count()).toBe(1);
    expect(await text(page, '#groups')).toContain('mock-mcqa-synthetic');
    await page.close();
  });

  it('shows the health verdicts when the checks ran, and says "not computed" when they did not', async () => {
    const verdicts = await lines(path.join(withHealth, 'rollout_verdicts.jsonl'));
    const unhealthy = verdicts.filter((v) => v.verdict === 'unhealthy').length;
    const page = await open(withHealth);
    expect(await text(page, '[data-health="verdicts"]')).toContain(`unhealthy ${unhealthy}`);
    const other = await open(withDiagnostics);
    expect(await text(other, '[data-health="not-computed"]')).toMatch(/not computed/);
    // Diagnostics on the records: their latency split and token counts are charted.
    expect(await other.locator('svg[aria-label="total latency (ms)"]').count()).toBe(1);
    expect(await other.locator('svg[aria-label="output tokens"]').count()).toBe(1);
    // Queueing is 5 ms on every synthetic rollout: said in words, not drawn.
    expect(await other.locator('svg[aria-label="queueing (ms)"]').count()).toBe(0);
    expect(await text(other, '#charts')).toContain('queueing (ms): 5');
    await Promise.all([page.close(), other.close()]);
  });

  it('finds a failure by its message and shows the turns it played', async () => {
    const page = await open(withHealth);
    const failures = page.locator('#failures');
    expect(await failures.locator('tbody tr.row').count()).toBe(2);
    await failures.locator('input.search').fill('malformed json');
    await expect.poll(() => failures.locator('.count').innerText()).toBe('1 matching of 2');
    expect(await failures.locator('tbody tr.row').first().innerText()).toContain('17-2');
    await failures.locator('tbody tr.row').first().click();
    const detail = await failures.locator('tbody tr.detail pre').innerText();
    expect(detail).toContain(FAILED['17-2']);
    expect(detail).toContain('Question 17:');
    expect(detail).toContain('Partial answer for task 17 before the upstream failed');
    await page.close();
  });

  it('pages through rollouts and searches their failure_reason, never holding more than a page in the DOM', async () => {
    const records = await lines(path.join(withHealth, 'rollouts.jsonl'));
    const page = await open(withHealth);
    const rollouts = page.locator('#rollouts');
    expect(await rollouts.locator('.page').innerText()).toBe('page 1 of 3');
    expect(await rollouts.locator('tbody tr.row').count()).toBe(50);
    await rollouts.locator('button.next').click();
    expect(await rollouts.locator('.page').innerText()).toBe('page 2 of 3');
    expect(await rollouts.locator('tbody tr.row td').first().innerText()).toBe(records[50]!._ng_rollout_id);
    await rollouts.locator('button.next').click();
    expect(await rollouts.locator('tbody tr.row').count()).toBe(records.length - 100);
    expect(await rollouts.locator('button.next').isDisabled()).toBe(true);

    const withReason = records.filter((r) => r.failure_reason === 'no_boxed_answer');
    expect(withReason.length).toBeGreaterThan(0);
    await rollouts.locator('input.search').fill('no_boxed_answer');
    await expect.poll(() => rollouts.locator('.count').innerText()).toBe(`${withReason.length} matching of ${records.length}`);
    expect(await rollouts.locator('.page').innerText()).toBe('page 1 of 1');
    const shown = await rollouts.locator('tbody tr.row td:first-child').allInnerTexts();
    expect(shown).toEqual(withReason.map((r) => r._ng_rollout_id));
    await page.close();
  });

  it('loads nothing but the file itself', () => {
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.filter((u) => !u.startsWith('file://'))).toEqual([]);
  });
});
