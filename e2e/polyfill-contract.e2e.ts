import { expect, test } from '@playwright/test';
import { CASES, NATIVE_DIFFERENCES } from '../packages/polyfill/test/contract/cases.js';

// The polyfill contract in real Chromium: project `chromium` runs it against the polyfill
// (native WebMCP off); project `chromium-native` against the browser's own modelContext,
// with the polyfill's generic layer on top. Known native differences must still differ.

for (const contractCase of CASES) {
  test(contractCase.name, async ({ page }, testInfo) => {
    const nativeRun = testInfo.project.name === 'chromium-native';
    await page.goto('/e2e/pages/contract.html');
    await expect(page.locator('#status')).toHaveText('ready');
    const info = await page.evaluate(
      () => (window as unknown as { contractInfo: { native: boolean } }).contractInfo,
    );
    expect(info.native, 'native WebMCP present exactly in the native project').toBe(nativeRun);
    const result = await page.evaluate(
      (name) =>
        (
          window as unknown as {
            runContractCase(n: string): Promise<{ ok: boolean; error?: string }>;
          }
        ).runContractCase(name),
      contractCase.name,
    );
    const difference = nativeRun ? NATIVE_DIFFERENCES[contractCase.name] : undefined;
    if (difference) {
      // How it differs today, for the report (reporter json / html show annotations).
      testInfo.annotations.push({ type: 'native difference', description: result.error ?? '' });
      expect(result.ok, `listed native difference no longer differs: ${difference}`).toBe(false);
    } else {
      expect(result).toEqual({ ok: true });
    }
  });
}
