import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { startBearerProxy } from '../scripts/conformance/proxy.js';
import {
  APPLICABLE,
  listServerScenarios,
  NOT_APPLICABLE,
  problems,
  runScenario,
} from '../scripts/conformance/scenarios.js';
import { HostProcess, toolwire } from './support/cli.js';

// The official MCP conformance suite (@modelcontextprotocol/conformance, its own process, on
// this Node through scripts/conformance/register.mjs) against a real `toolwire host`'s /mcp,
// whose tools are a real page's in Chromium (e2e/pages/conformance/tools.ts). Its client sends
// no Authorization header, so a header-adding proxy (scripts/conformance/proxy.ts) stands in
// front, passing Host and Origin as they are; the host is told the proxy's port forwards to it.
// docs/conformance.md lists what applies, what does not, and the acceptable warnings.

const ORIGIN = `http://localhost:${E2E_PORT}`;
const PAGE = '/e2e/pages/conformance/index.html';

/** The page tools the scenarios call by name. */
test('every server scenario of the pinned suite is either applicable or listed as not, with a reason', async () => {
  const scenarios = await listServerScenarios();
  expect(scenarios.length).toBeGreaterThan(20);
  expect([...Object.keys(APPLICABLE), ...Object.keys(NOT_APPLICABLE)].sort()).toEqual(
    [...scenarios].sort(),
  );
});

const SUITE_TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_error_handling',
  'test_tool_with_progress',
  'json_schema_2020_12_tool',
  'test_reconnection',
];

test('every applicable official conformance scenario passes against /mcp, with tools from a page', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const home = mkdtempSync(join(tmpdir(), 'toolwire-conformance-home-'));
  const results = mkdtempSync(join(tmpdir(), 'toolwire-conformance-results-'));
  // The client configuration's secret, as a person gets it (no host running yet: made now).
  const config = await toolwire(['mcp-config', '--client', 'vscode', '--http', '--json'], {
    TOOLWIRE_HOME: home,
  });
  expect(config.code, config.err).toBe(0);
  const printed = JSON.parse(config.out) as {
    configs: { config: { servers: { toolwire: { headers: { Authorization: string } } } } }[];
  };
  const authorization = printed.configs[0]?.config.servers.toolwire.headers.Authorization;
  const secret = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1] as string;
  expect(secret).toBeTruthy();

  const proxy = await startBearerProxy({ secret });
  const host = new HostProcess(
    ['--allow-origin', ORIGIN, '--forwarded-port', String(proxy.port)],
    undefined,
    { TOOLWIRE_HOME: home },
  );
  try {
    const url = await host.url();
    proxy.target = `http://127.0.0.1:${new URL(url).port}`;
    await page.goto(`${ORIGIN}${PAGE}#toolwire=${encodeURIComponent(url)}`);
    await expect(page.locator('#status')).toHaveText('open');

    // The honest path first: the tools are listed through the proxy by the SDK's own client.
    const { Client, StreamableHTTPClientTransport } = await import(
      '../packages/host/test/mcp-client.js'
    );
    const client = new Client({ name: 'toolwire-conformance-e2e', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
    await expect
      .poll(async () => (await client.listTools()).tools.map((tool) => tool.name))
      .toEqual(expect.arrayContaining(SUITE_TOOLS));
    await client.close();

    const report: string[] = [];
    const table: string[] = [];
    for (const scenario of Object.keys(APPLICABLE)) {
      const run = await runScenario(proxy.url, scenario, results);
      table.push(
        `${scenario}: ${run.checks.map((check) => `${check.id} ${check.status}`).join(', ')}`,
      );
      const found = problems(scenario, run.checks);
      report.push(...found);
      if (found.length > 0) report.push(`${scenario} output:\n${run.stdout}\n${run.stderr}`);
      if (scenario === 'server-sse-polling') {
        // Its assertions are SHOULDs; what must hold is that the call's answer came back on
        // its POST stream, which the scenario notes in its `stream-closed` check.
        const closed = run.checks.find((check) => check.id === 'stream-closed');
        expect(closed?.details).toMatchObject({ receivedToolResponse: true });
        expect(run.checks.map((check) => check.id)).toEqual(
          expect.arrayContaining(Object.keys(APPLICABLE[scenario] ?? {})),
        );
      }
      if (scenario === 'json-schema-2020-12') {
        expect(run.checks.filter((check) => check.status === 'SUCCESS').length).toBeGreaterThan(3);
      }
      if (scenario === 'dns-rebinding-protection') {
        // Both halves ran: a foreign Host refused with 4xx, the proxy's own loopback Host taken.
        expect(run.checks.map((check) => [check.id, check.status])).toEqual([
          ['localhost-host-rebinding-rejected', 'SUCCESS'],
          ['localhost-host-valid-accepted', 'SUCCESS'],
        ]);
      }
    }
    // The reason some do not apply, shown: the host has no logging, resources, prompts or
    // completions, so the suite's request for each is answered "method not found".
    for (const scenario of [
      'logging-set-level',
      'resources-list',
      'prompts-list',
      'completion-complete',
    ]) {
      expect(NOT_APPLICABLE[scenario]).toBeTruthy();
      const run = await runScenario(proxy.url, scenario, results);
      expect(run.checks.length, scenario).toBeGreaterThan(0);
      for (const check of run.checks) {
        expect(check.status, scenario).toBe('FAILURE');
        expect(check.errorMessage, scenario).toMatch(/-32601|Method not found/);
      }
    }
    await test.info().attach('checks', { body: table.join('\n'), contentType: 'text/plain' });
    expect(report, report.join('\n')).toEqual([]);
  } finally {
    await host.stop();
    await proxy.close();
  }
});
