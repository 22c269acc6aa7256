// The docs page in a real browser (issue #24 point 1): Debian's Chromium, driven by playwright-core,
// opens the whole server's /api/v1/docs and must show the API's title and the Agents operations,
// with no console error and no request leaving the server's own origin.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { startServer, type Server } from '../blackbox/server.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// CI installs Chromium (.ci/run), so there it must run; elsewhere a machine without it skips.
const skip = process.env.CI !== 'true' && !existsSync(CHROMIUM);
if (skip) console.warn(`test/docs/browser.test.ts skipped: no Chromium at ${CHROMIUM} (apt-get install chromium; CI=true requires it)`);

let server: Server;
let browser: Browser;
beforeAll(async () => {
  if (skip) return;
  if (!existsSync(CHROMIUM)) throw new Error(`CI=true and no Chromium at ${CHROMIUM}: .ci/run installs Debian's chromium with apt`);
  [server, browser] = await Promise.all([startServer(), chromium.launch({ executablePath: CHROMIUM })]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  server?.stop();
});

test.skipIf(skip)('the docs page renders the API from this origin alone, with no console error', async () => {
  const context = await browser.newContext();
  // Swagger UI takes seconds to lay the document out on a busy 2-core machine.
  context.setDefaultTimeout(60_000);
  const foreign: string[] = [];
  const errors: string[] = [];
  // Every request the page makes goes through here: one to any other origin is refused and counted.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === server.cp) return route.continue();
    foreign.push(url);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} for ${response.url()}`);
  });

  const response = await page.goto(`${server.cp}/api/v1/docs`, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  await page.locator('.info .title', { hasText: 'API Platform control plane' }).waitFor();
  await page.locator('.opblock-tag', { hasText: 'Agents' }).first().waitFor();
  // PATCH /api/v1/agents/{agentId}, "Update an Agent", among the Agents operations.
  const update = page.locator('.opblock-patch', { has: page.locator('[data-path="/api/v1/agents/{agentId}"]') });
  await update.waitFor();
  expect(await update.textContent()).toContain('Update an Agent');
  await expect(page.title()).resolves.toBe('API Platform control plane');
  // Opening the operation shows its request body schema, from the same document.
  await update.locator('.opblock-summary').click();
  await update.locator('.opblock-body').waitFor();
  await page.waitForLoadState('networkidle');

  expect(foreign).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
}, 120_000);
