/**
 * Puts the demo app in a state worth showing: paired with `host`, the scripted tour run, one
 * exchange of the session log open and one tool's schemas open in the agent view. Shared by
 * demo/app/screenshot.ts and e2e/demo-pages.e2e.ts. Returns the tour's transcript.
 */
import type { Page } from '@playwright/test';
import type { Host } from '../../packages/host/src/index.js';
import { clickConnect } from '../click-connect.js';
import { runTour } from '../tour-steps.js';

export const SHOWCASE_VIEWPORT = { width: 1480, height: 1000 };

export async function showcase(page: Page, host: Host, originA: string): Promise<string[]> {
  const transcript: string[] = [];
  const connected = host.waitForSession({ timeoutMs: 30_000 });
  await page.goto(host.pairingUrl(`${originA}/app/`));
  await clickConnect(page);
  const session = await connected;
  await session.ready;
  await runTour(page, session, (line = '') => transcript.push(line));
  // The agent view follows the catalog a moment after it changes.
  await page.waitForSelector('#agent-tools details[data-tool="calendar.events"]');
  await page.evaluate("window.toolwireDemo.agentView.expand('calendar.events')");
  await page.click('#log .exchange[data-tool="calendar.events"] > summary');
  await page.waitForSelector('#log .exchange[data-tool="calendar.events"][data-state="ok"]');
  // Let the calendar's late re-render and the agent view settle before a picture is taken.
  await page.waitForTimeout(300);
  return transcript;
}

/** Grows the viewport to the whole page (a fullPage capture of cross-origin frames can blank). */
export async function fitPage(page: Page): Promise<void> {
  const height = await page.evaluate('document.documentElement.scrollHeight');
  await page.setViewportSize({ width: SHOWCASE_VIEWPORT.width, height: Number(height) });
  await page.waitForTimeout(300);
}
