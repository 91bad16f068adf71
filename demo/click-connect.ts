// What a person does when a pairing link opens a page: click Connect in the endpoint's prompt
// (issue 13). Shared by the tour, the showcase and the e2e suites.
import type { Page } from '@playwright/test';

export async function clickConnect(page: Page): Promise<void> {
  await page
    .getByRole('dialog', { name: 'Connect this tab to toolwire?' })
    .getByRole('button', { name: 'Connect' })
    .click();
}
