import { type Browser, chromium } from 'playwright-core';
import { inject } from 'vitest';

/** Headless Chromium with nothing that reaches for the network on its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: inject('chromium').path, args: CHROMIUM_ARGS });
}
