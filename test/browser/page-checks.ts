import type { Browser, BrowserContext, Page } from 'playwright-core';

export const VIEWPORTS = {
  desktop: { width: 1366, height: 768 },
  phone: { width: 390, height: 844 },
} as const;

/** What went wrong on a page while it was open: console errors, CSP violations, uncaught exceptions. */
export interface PageProblems {
  console: string[];
  csp: string[];
  errors: string[];
}

/** A browser context whose pages record their problems (read them with `problemsOf`). */
export async function watchedContext(browser: Browser, viewport: { width: number; height: number }): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  await context.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return context;
}

const problems = new WeakMap<Page, PageProblems>();

export function watch(page: Page): Page {
  const found: PageProblems = { console: [], csp: [], errors: [] };
  problems.set(page, found);
  page.on('console', (message) => {
    if (message.type() === 'error') found.console.push(message.text());
  });
  page.on('pageerror', (err) => found.errors.push(err.message));
  return page;
}

/** Horizontal overflow (document wider than the viewport), console errors and CSP violations of the page. */
export async function problemsOf(page: Page): Promise<PageProblems & { overflow: number }> {
  const found = problems.get(page) ?? { console: [], csp: [], errors: [] };
  const csp = await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  return { ...found, csp: [...found.csp, ...csp], overflow };
}

export async function logIn(page: Page, base: string, email: string, password: string, next = '/') {
  await page.goto(`${base}/login?next=${encodeURIComponent(next)}`);
  await page.fill('#email', email);
  await page.fill('#password', password);
  await page.click('#login-form button[type=submit]');
  await page.waitForURL((url) => url.pathname !== '/login');
}
