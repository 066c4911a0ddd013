import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

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

/** A watched page of `context`, signed in as `user` and landed where the app sends them after `next`. */
export async function signedInPage(
  context: BrowserContext,
  base: string,
  user: { email: string; password: string },
  next = '/',
): Promise<Page> {
  const page = watch(await context.newPage());
  page.setDefaultTimeout(20_000);
  await logIn(page, base, user.email, user.password, next);
  return page;
}

/**
 * Amounts ("$ 1.234,56") shown on more than one line: for each amount in the page's text, the
 * line boxes of just its characters are measured (a range over them); boxes further apart than
 * half a line are lines of their own. Answers the amounts that wrapped (hidden ones are skipped).
 */
export async function wrappedAmounts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const wrapped: string[] = [];
    const amount = /[-\u2212]?\$[\s\u00a0]?-?\d[\d.]*(,\d+)?/g;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node as Text;
      for (const match of text.data.matchAll(amount)) {
        const range = document.createRange();
        range.setStart(text, match.index);
        range.setEnd(text, match.index + match[0].length);
        const boxes = Array.from(range.getClientRects()).filter((r) => r.width > 0 && r.height > 0);
        if (boxes.length === 0) continue;
        const tops = boxes.map((r) => r.top).sort((a, b) => a - b);
        const half = Math.min(...boxes.map((r) => r.height)) / 2;
        const lines = 1 + tops.slice(1).filter((top, n) => top - tops[n]! > half).length;
        if (lines > 1) wrapped.push(match[0]);
      }
    }
    return wrapped;
  });
}

/** On a phone the shell's menu is one button; this unfolds it (nothing on a desktop, where it is open). */
export async function openMenu(page: Page) {
  const toggle = page.locator('[data-menu-toggle]');
  if (await toggle.isVisible()) {
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    await page.waitForSelector('.shell-nav a', { state: 'visible' });
  }
}

/**
 * Waits for `target`; if it never shows, fails with what `around` showed instead (an error the page
 * put up, a form still open), so a failure in a loaded CI run says what happened, not only "timeout".
 */
export async function waitShowing(target: Locator, around: Locator): Promise<void> {
  try {
    await target.waitFor();
  } catch (err) {
    // biome-ignore lint/performance/useDomNodeTextContent: the text as laid out, a line per block, to read in a CI log
    const shown = await around.innerText({ timeout: 1_000 }).catch(() => '(not on the page)');
    throw new Error(`${(err as Error).message}\n--- instead, the page showed:\n${shown}`, { cause: err });
  }
}

/**
 * What a phone cuts off that the page's own width does not show: the tables (`.table-wrap`) whose
 * content is wider than their box, so their last columns sit past the card's edge (answered by the
 * table's id), and a brand ("Mostrador") broken over two lines by a long section name beside it.
 */
export async function cutOff(page: Page): Promise<{ tables: string[]; brandLines: number }> {
  return page.evaluate(() => {
    const tables = Array.from(document.querySelectorAll<HTMLElement>('.table-wrap'))
      .filter((w) => w.offsetParent !== null && w.scrollWidth > w.clientWidth + 1)
      .map((w) => w.querySelector('table')?.id || '(table without id)');
    // The line boxes of the brand's text (its logo is an image beside it, not a line).
    const name = Array.from(document.querySelector('.brand')?.childNodes ?? []).find((n) => n.nodeType === Node.TEXT_NODE);
    let brandLines = 0;
    if (name) {
      const range = document.createRange();
      range.selectNodeContents(name);
      brandLines = new Set(
        Array.from(range.getClientRects())
          .filter((r) => r.width > 0 && r.height > 0)
          .map((r) => Math.round(r.top)),
      ).size;
    }
    return { tables, brandLines };
  });
}

/** The labels of the column charts (SVG text) that stick out of their chart, so the edge cuts them. */
export async function cutChartLabels(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('figure.chart svg')).flatMap((svg) => {
      const box = svg.getBoundingClientRect();
      return Array.from(svg.querySelectorAll('text'))
        .filter((t) => {
          const r = t.getBoundingClientRect();
          return r.left < box.left - 0.5 || r.right > box.right + 0.5;
        })
        .map((t) => t.textContent ?? '');
    }),
  );
}
