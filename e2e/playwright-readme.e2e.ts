import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type PlaywrightTestArgs, type TestInfo, test } from '@playwright/test';
import { webmcp } from '../packages/playwright/src/index.js';

// @toolwire/playwright's README example, exactly as written there (issue 17 part 4, "Done
// when"): the ts block is read from the README at load time, its two imports are checked and
// replaced by the same bindings, and the rest runs here, so it declares its test in this file.
// Its `page.goto('/')` opens the shop page (e2e/pages/playwright/). It runs in both projects:
// the polyfill path in `chromium`, Playwright's page.webmcp in `chromium-native`.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(ROOT, 'packages', 'playwright', 'README.md'), 'utf8');
const EXAMPLE =
  [...README.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .find((block) => block.includes('webmcp(page)')) ?? '';
const IMPORTS = [
  "import { expect, test } from '@playwright/test';",
  "import { webmcp } from '@toolwire/playwright';",
];
const lines = EXAMPLE.split('\n');
const body = lines.filter((line) => !IMPORTS.includes(line)).join('\n');
const SHOP = readFileSync(join(ROOT, 'e2e', 'pages', 'playwright', 'shop.html'), 'utf8').replace(
  'src="./shop.ts"',
  'src="/e2e/pages/playwright/shop.ts"',
);

test('the README example has its two imports and one test', () => {
  expect(lines.slice(0, 2)).toEqual(IMPORTS);
  expect(body.match(/\btest\(/g)).toHaveLength(1);
  expect(body).not.toMatch(/\bimport\b/);
  expect(declared).toHaveLength(1);
});

// `/` is the shop page; everything it loads comes from the e2e server as usual.
test.beforeEach(async ({ page, baseURL }) => {
  await page.route(new URL('/', baseURL).href, (route) =>
    route.fulfill({ contentType: 'text/html', body: SHOP }),
  );
});

// The path each project must take, checked after the README's test has run in it.
test.afterEach(async ({ page }, info) => {
  if (!info.title.startsWith('README: ')) return;
  expect(await webmcp(page).via()).toBe(
    info.project.name === 'chromium-native' ? 'native' : 'polyfill',
  );
});

// The example is plain JavaScript (no type annotations), so it runs as written. Its `test()`
// call is collected and declared from here: Playwright places a test by its caller's file.
type Body = (args: PlaywrightTestArgs, info: TestInfo) => Promise<void>;
const declared: { title: string; fn: Body }[] = [];
const collect = (title: string, fn: Body) => declared.push({ title, fn });
new Function('test', 'expect', 'webmcp', body)(collect, expect, webmcp);
for (const example of declared) test(`README: ${example.title}`, example.fn);
