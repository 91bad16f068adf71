import { expect, test } from '@playwright/test';
import { fitPage, SHOWCASE_VIEWPORT, showcase } from '../demo/app/showcase.js';
import { type DemoServers, startDemoServers } from '../demo/serve.js';
import { createHost, type Host } from '../packages/host/src/index.js';

// The demo app as people will see it: paired with a host after the scripted tour (session log
// open, agent view showing). Its screenshot goes to this test's output directory
// (test-results/); demo/app/screenshot.ts makes the committed copy. The frames page's
// screenshot is taken by demo-frames.e2e.ts, which checks that page.
// The assertions are on what is visible, so a blank or broken page fails.

// Ports of their own (not the demo's TOOLWIRE_DEMO_PORT_A/B), free ones (0) unless given:
// several suites and checkouts may run at once.
const PORTS = {
  a: Number(process.env.TOOLWIRE_DEMO_PAGES_PORT_A ?? 0),
  b: Number(process.env.TOOLWIRE_DEMO_PAGES_PORT_B ?? 0),
};
let servers: DemoServers;
let host: Host;

test.beforeAll(async () => {
  servers = await startDemoServers({ ports: PORTS, watch: false });
  host = await createHost({ origins: [servers.originA], maxToolPolicy: 'write' });
});

test.afterAll(async () => {
  await host?.close();
  await servers?.close();
});

test('the demo app, paired, after the tour: notes, calendar frame, session log, agent view', async ({
  browser,
}) => {
  // The whole test's bound, not a wait: more work than the default 30 s allows a busy machine.
  test.setTimeout(90_000);
  const page = await browser.newPage({ viewport: SHOWCASE_VIEWPORT });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  const transcript = await showcase(page, host, servers.originA);
  expect(transcript.join('\n')).toContain('success: true, 3 of 3 completed');

  await expect(page.locator('#status')).toHaveText('connected');
  await expect(page.locator('#notes li')).toHaveCount(3);
  await expect(page.locator('#notes')).toContainText('Water plants');
  await expect(page.locator('#tag-cloud')).toContainText('#errands 2');
  // The search form (a declarative tool) after the tour's notes.search: filled, one match shown.
  await expect(page.locator('#search-form input[name="text"]')).toHaveValue('milk');
  await expect(page.locator('#search-result')).toContainText('(searched by the agent)');
  await expect(page.locator('#notes li.match')).toHaveCount(1);
  const calendar = page.frameLocator('#calendar');
  await expect(calendar.locator('#events li')).toHaveCount(4);
  await expect(calendar.locator('#events li.new')).toContainText('Call Ada');
  await expect(calendar.locator('.widget-head')).toContainText(new URL(servers.originB).host);

  // Session panel: state, revision, and the log with one exchange open.
  await expect(page.locator('#fact-state')).toHaveText('connected');
  await expect(page.locator('#fact-revision')).toContainText(/revision \w+ · 12 tools/);
  await expect(page.locator('#fact-traffic')).toContainText('1 error');
  // Every request the host sent is in the log (how many catalog refreshes come before the tour
  // depends on when the person clicked Connect).
  const sent = host.sessions.at(-1)?.stats.requests ?? 0;
  expect(sent).toBeGreaterThanOrEqual(14);
  await expect(page.locator('#log .exchange')).toHaveCount(sent);
  await expect(page.locator('#log .exchange[data-state="error"]')).toContainText(
    'tool_arguments_schema_invalid',
  );
  const open = page.locator('#log .exchange[open]');
  await expect(open).toHaveCount(1);
  await expect(open.locator('.response pre')).toBeVisible();
  await expect(open.locator('.response pre')).toContainText('"beforeArrivedAs": "Date"');
  await expect(page.locator('#log .exchange[data-type="tool.batch"] summary')).toContainText(
    '3/3 done',
  );

  // Agent view: the three groups, the frame's tools in theirs, one schema open.
  await expect(page.locator('#agent-summary')).toHaveText('12 tools');
  await expect(page.locator('#agent-tools .group-page .agent-tool')).toHaveCount(6);
  await expect(page.locator('#agent-tools .group-frame .agent-tool')).toHaveCount(2);
  await expect(page.locator('#agent-tools .group-frame h3')).toContainText(
    new URL(servers.originB).host,
  );
  const events = page.locator('#agent-tools details[data-tool="calendar.events"]');
  await expect(events).toHaveAttribute('open', '');
  await expect(events.locator('.sig')).toContainText('(before: string<date-time>)');
  await expect(events.locator('.schemas')).toBeVisible();
  await expect(page.locator('#agent-tools details[data-tool="notes.export"] .sig')).toContainText(
    '{mimeType: string, data: string}',
  );
  await expect(page.locator('#agent-tools details[data-tool="notes.tags"] .sig')).toContainText(
    '{[string]: integer}',
  );

  await fitPage(page);
  await page.screenshot({ path: test.info().outputPath('app.png') });
  expect(problems).toEqual([]);
  await page.close();
});

// Issue 15 item 7: what a newcomer sees before pairing. The hint is a command for this very
// page, --allow-origin included; the search field shows its whole placeholder.
test('the unpaired app: a hint naming --allow-origin, and a search field wide enough to read', async ({
  browser,
}) => {
  for (const width of [1440, 1200]) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    await page.goto(`${servers.originA}/app/`);
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
    await expect(page.locator('#status')).toHaveText('not paired');
    await expect(page.locator('#unpaired-command')).toHaveText(
      `pnpm toolwire host --allow-origin ${servers.originA} --max-tool-policy write --page ${servers.originA}/app/`,
    );
    const room = await page.locator('#search-form input[name="text"]').evaluate((input) => {
      const style = getComputedStyle(input);
      const context = document.createElement('canvas').getContext('2d') as CanvasRenderingContext2D;
      context.font = style.font;
      const padding = Number.parseFloat(style.paddingLeft) + Number.parseFloat(style.paddingRight);
      return {
        inside: input.clientWidth - padding,
        placeholder: context.measureText((input as HTMLInputElement).placeholder).width,
      };
    });
    expect(room.inside, `viewport ${width}`).toBeGreaterThan(room.placeholder * 1.5);
    await page.close();
  }
});
