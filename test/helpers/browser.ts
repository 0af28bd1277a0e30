// The console in a real browser: Debian's Chromium (/usr/bin/chromium) driven by playwright-core,
// one browser per test file. A page signs in with a token, collects console errors and page errors
// (a test fails on any), saves screenshots under test-output/console/, and runs axe-core.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { ROOT } from './process.js';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = path.join(ROOT, 'test-output', 'console');
export const LAPTOP = { width: 1366, height: 850 };
export const PHONE = { width: 390, height: 844 };

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One Chromium for the tests of the enclosing file. */
export function withBrowser(): { browser: Browser } {
  const ctx = {} as { browser: Browser };
  beforeAll(async () => {
    // Root in CI and containers: Chromium's own sandbox needs user namespaces it may not have.
    ctx.browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });
  afterAll(async () => {
    await ctx.browser?.close();
  });
  return ctx;
}

export interface ConsolePage {
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
  /** Navigates within the console (path below /console, e.g. `/findings`). */
  goto(pathname: string): Promise<void>;
  screenshot(name: string): Promise<string>;
  /** axe-core violations of impact serious or critical on the current page. */
  seriousViolations(): Promise<Array<{ id: string; impact: string; help: string; nodes: string[] }>>;
  close(): Promise<void>;
}

/**
 * A new browser context at `viewport`, signed in to the console of `baseUrl` with `token` (the
 * sign-in form, as a person does) unless `token` is null.
 */
export async function openConsole(browser: Browser, baseUrl: string, token: string | null, viewport = LAPTOP): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport, baseURL: baseUrl });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto('/console/');
  if (token !== null) {
    await page.getByLabel('Operator token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  }
  return {
    page,
    errors,
    async goto(pathname) {
      await page.goto(`/console${pathname.startsWith('/') ? pathname : `/${pathname}`}`);
      if (token !== null) await page.getByRole('navigation', { name: 'Main' }).waitFor();
    },
    async screenshot(name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      const file = path.join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    async seriousViolations() {
      // Evaluated over the DevTools protocol: the console's CSP (script-src 'self') refuses an inline script tag.
      await page.evaluate(axeSource);
      const violations = await page.evaluate(async () => {
        // Runs in the page: its globals, not Node's (the test's tsconfig has no DOM types).
        const page = globalThis as any;
        const result: { violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> } = await page.axe.run(page.document, { resultTypes: ['violations'] });
        return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact ?? 'unknown', help: violation.help, nodes: violation.nodes.map((node) => JSON.stringify(node.target)) }));
      });
      return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
    },
    async close() {
      await context.close();
    },
  };
}

/** Fails on console errors the page logged (call at the end of a test). */
export function expectNoConsoleErrors(view: ConsolePage): void {
  expect(view.errors).toEqual([]);
}
