// How e2e pages meet a host. Test pages whose own code calls `connect()` take the host's page
// URL (token included) from their fragment; pages that only load endpoint.iife.js pair from a
// link, after a person clicks Connect in the endpoint's prompt (issue 13).
import type { Page } from '@playwright/test';
import { clickConnect } from '../../demo/click-connect.js';
import type { Host } from '../../packages/host/src/index.js';

export { clickConnect };

/** `page` with the host's connect URL in `#toolwire=`, for pages that connect by their own code. */
export function withConnectUrl(host: Host, page: string): string {
  return `${page}#toolwire=${encodeURIComponent(host.url)}`;
}

/** Opens `url` from a fresh pairing link and clicks Connect in the prompt, as a person would. */
export async function openPaired(page: Page, host: Host, url: string): Promise<void> {
  await page.goto(host.pairingUrl(url));
  await clickConnect(page);
}
