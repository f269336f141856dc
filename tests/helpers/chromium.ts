// Headless Chromium for tests and benchmarks that look at a page: Debian's package (installed by .ci/run),
// driven by playwright-core, with a fresh profile and nothing that reaches for the network on its own.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchChromium(): Promise<BrowserContext> {
  return chromium.launchPersistentContext(await mkdtemp(path.join(os.tmpdir(), 'gymflow-chromium-')), { executablePath: '/usr/bin/chromium', headless: true, args: ARGS });
}
