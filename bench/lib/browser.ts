/** Debian's Chromium for the benches: launched through Playwright, and described in the report. */
import { type Browser, chromium } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/find-chromium.mjs';

/** Headless Chromium through Playwright, with the repository's usual arguments. */
export function launchPlaywrightChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
}

/** The report's browser line, e.g. `- Chromium 131.0.6778.85 (--no-sandbox ...; headless)`. */
export function chromiumLine(version: string): string {
  return `- Chromium ${version} (${CHROMIUM_ARGS.join(' ')}; headless)`;
}
