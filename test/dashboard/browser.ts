import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's `chromium` package, driven by playwright-core (no browser download: `.ci/run` installs
 * the package when it is missing). CHROMIUM_PATH points elsewhere if needed.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const SCREENSHOTS = path.join(__dirname, '../../artifacts/screenshots');
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export type DashboardPage = Page & { problems: string[] };

/**
 * A fresh browser profile. axe-core comes in as an init script (the browser's own channel, which the
 * API's Content-Security-Policy does not govern), so that the policy applies as in production; script
 * errors and CSP violations are collected in `problems`.
 */
export async function newPage(browser: Browser): Promise<{ context: BrowserContext; page: DashboardPage }> {
  const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB', timezoneId: 'UTC' });
  context.setDefaultTimeout(15_000);
  await context.addInitScript({ content: AXE });
  const page = (await context.newPage()) as DashboardPage;
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) page.problems.push(m.text());
  });
  return { context, page };
}

/**
 * Full-page screenshots at 1280 px and 390 px wide, into artifacts/screenshots/. Returns how wide the
 * page is at 390 px: wider means a phone has to scroll the whole page sideways.
 */
export async function shoot(page: Page, name: string): Promise<{ phoneWidth: number }> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(100);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-390.png`), fullPage: true });
  const phoneWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  await page.setViewportSize(DESKTOP);
  return { phoneWidth };
}

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.x A and AA rules). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } }).then((r) =>
    r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })))`) as Promise<AxeViolation[]>;
}

/**
 * A page as every browser test checks it: no console error or failed request, no serious axe-core
 * violation, then screenshots at both widths — at 390 px it must fit the phone's width.
 */
export async function check(page: DashboardPage, name: string) {
  expect(page.problems).toEqual([]);
  await page.waitForLoadState('networkidle');
  expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
  const { phoneWidth } = await shoot(page, name);
  expect({ page: name, phoneWidth }).toEqual({ page: name, phoneWidth: PHONE.width });
}
