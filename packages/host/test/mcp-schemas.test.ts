import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Host, McpBridge } from '../src/index.js';
import { createHost, createMcpBridge } from '../src/index.js';
import { linearPattern, MAX_CHARS, MAX_DEPTH } from '../src/mcp/schema.js';
import { FakePage, tool } from './helpers.js';

// A page's schemas reach MCP clients bounded (src/mcp/schema.ts): the SDK's own Client, in
// this process, lists and calls a tool whose result schema holds a pattern that backtracks for
// good on the value it returns. Were the client to run it, this process would stop.

const HOSTILE = '^(a|a)+$';
const VALUE = `${'a'.repeat(40)}b`;

/**
 * A page tool that checks its own schemas (BridgeTool.validates): a real page checks them in
 * its browser; this FakePage runs in the test's process, where its check would hang the test.
 */
function unchecked(...args: Parameters<typeof tool>): ReturnType<typeof tool> {
  return { ...tool(...args), validates: { arguments: true, result: true } };
}

let host: Host | undefined;
let bridge: McpBridge | undefined;
let client: Client | undefined;
const pages: FakePage[] = [];

afterEach(async () => {
  await client?.close();
  await bridge?.close();
  for (const page of pages.splice(0)) page.socket.terminate();
  await host?.close();
  host = bridge = client = undefined;
});

/** The SDK's Client on the bridge, over in-memory stdio (the client side is a stream transport too). */
async function start(tools: ReturnType<typeof tool>[]) {
  host = await createHost({ origins: ['*'], maxToolPolicy: 'write' });
  const input = new PassThrough();
  const output = new PassThrough();
  bridge = createMcpBridge(host, { input, output });
  await bridge.ready;
  client = new Client({ name: 'toolwire-schemas-test', version: '0.0.0' });
  await client.connect(new StdioServerTransport(output, input));
  const connected = await FakePage.connect(host.url, { tools });
  pages.push(connected);
  await host.waitForSession({ filter: (s) => s.info?.key === connected.key });
  return client;
}

/** Whether a setImmediate scheduled before `run` fired by the time `run` resolved. */
async function unblocked<T>(run: () => Promise<T>): Promise<{ value: T; turned: boolean }> {
  let turned = false;
  setImmediate(() => {
    turned = true;
  });
  const value = await run();
  return { value, turned };
}

const objectOf = (text: Record<string, unknown>) => ({
  type: 'object',
  properties: { text },
  required: ['text'],
});

describe('schemas that reach MCP clients', () => {
  it('a linear pattern is kept and enforced; valid results carry structuredContent', async () => {
    const mcp = await start([
      tool('demo.word', (args) => ({ text: (args as { text: string }).text }), {
        argumentsSchema: objectOf({ type: 'string', pattern: '^[a-z]+$' }),
        resultSchema: objectOf({ type: 'string', pattern: '^[a-z]+$' }),
      }),
      unchecked('demo.liar', () => ({ text: 'ABC' }), {
        resultSchema: objectOf({ type: 'string', pattern: '^[a-z]+$' }),
      }),
    ]);
    const listed = (await mcp.listTools()).tools.find((t) => t.name === 'demo_word');
    expect(listed?.inputSchema.properties).toEqual({
      text: { type: 'string', pattern: '^[a-z]+$' },
    });
    expect(listed?.outputSchema?.properties).toEqual({
      text: { type: 'string', pattern: '^[a-z]+$' },
    });
    expect(listed?._meta).not.toHaveProperty('toolwire/schemaNotes');
    const ok = await mcp.callTool({ name: 'demo_word', arguments: { text: 'abc' } });
    expect(ok.structuredContent).toEqual({ text: 'abc' });
    expect(ok.isError).toBe(false);
    // The page checks the arguments against its own pattern too.
    const refused = await mcp.callTool({ name: 'demo_word', arguments: { text: 'ABC' } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('tool_arguments_schema_invalid');
    // A page's tool that answers what breaks its own pattern: the host sends no
    // structuredContent, but a tool error with the JSON as text, which the client takes.
    const bad = await mcp.callTool({ name: 'demo_liar', arguments: {} });
    expect(bad.structuredContent).toBeUndefined();
    expect(bad.isError).toBe(true);
    expect(bad._meta?.['toolwire/code']).toBe('tool_result_schema_invalid');
    expect(bad.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^tool_result_schema_invalid: /) },
      { type: 'text', text: '{"text":"ABC"}' },
    ]);
  });

  it('a backtracking pattern never reaches the client: listTools and callTool return', async () => {
    const mcp = await start([
      unchecked('demo.hostile', () => ({ text: VALUE }), {
        argumentsSchema: {
          type: 'object',
          properties: { q: { type: 'string', pattern: HOSTILE } },
          patternProperties: { [HOSTILE]: { type: 'string' } },
          additionalProperties: false,
        },
        resultSchema: objectOf({ type: 'string', pattern: HOSTILE }),
      }),
    ]);
    const list = await unblocked(() => mcp.listTools());
    expect(list.turned).toBe(true);
    const listed = list.value.tools.find((t) => t.name === 'demo_hostile');
    expect(JSON.stringify(listed)).not.toContain('pattern":"^(a|a)');
    expect(listed?.inputSchema).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
      patternProperties: {},
    });
    expect(listed?.outputSchema).toEqual(objectOf({ type: 'string' }));
    expect(listed?._meta?.['toolwire/schemaNotes']).toEqual([
      'inputSchema/properties/q/pattern: left out (not provably linear-time)',
      'inputSchema/patternProperties/^(a|a)+$: left out (not provably linear-time)',
      'outputSchema/properties/text/pattern: left out (not provably linear-time)',
    ]);
    const call = await unblocked(() => mcp.callTool({ name: 'demo_hostile', arguments: {} }));
    expect(call.turned).toBe(true);
    expect(call.value.structuredContent).toEqual({ text: VALUE });
  });

  it('a top-level 2020-12 $schema is kept with $defs and $ref; other $schema values are not', async () => {
    const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
    const address = { type: 'object', properties: { city: { type: 'string' } } };
    const mcp = await start([
      tool('demo.dialect', () => ({ ok: true }), {
        argumentsSchema: {
          $schema: DIALECT,
          type: 'object',
          $defs: { address },
          properties: { address: { $ref: '#/$defs/address' } },
          additionalProperties: false,
        },
        resultSchema: {
          $schema: DIALECT,
          type: 'object',
          properties: { ok: { type: 'boolean' } },
          required: ['ok'],
        },
      }),
      tool('demo.draft7', () => ({}), {
        argumentsSchema: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { nested: { $schema: DIALECT, type: 'string' } },
        },
      }),
    ]);
    const { tools } = await mcp.listTools();
    const dialect = tools.find((t) => t.name === 'demo_dialect');
    expect(dialect?.inputSchema).toEqual({
      $schema: DIALECT,
      type: 'object',
      $defs: { address },
      properties: { address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    });
    // The client's own validator compiles it, so the output schema is listed and enforced.
    expect(dialect?.outputSchema).toMatchObject({ $schema: DIALECT, type: 'object' });
    const call = await mcp.callTool({ name: 'demo_dialect', arguments: {} });
    expect(call.structuredContent).toEqual({ ok: true });
    // Another dialect, and a `$schema` below the top, are left out as before.
    expect(tools.find((t) => t.name === 'demo_draft7')?.inputSchema).toEqual({
      type: 'object',
      properties: { nested: { type: 'string' } },
    });
  });

  it('deep and huge schemas are bounded: a permissive input, no output schema', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20; i += 1) deep = { type: 'object', properties: { x: deep } };
    const huge = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 5000 }, (_, i) => [
          `field${i}`,
          { type: 'string', description: 'x'.repeat(20) },
        ]),
      ),
    };
    const mcp = await start([
      unchecked('demo.deep', () => ({ x: {} }), { argumentsSchema: deep, resultSchema: deep }),
      unchecked('demo.huge', () => ({ field0: 'a' }), {
        argumentsSchema: huge,
        resultSchema: huge,
      }),
    ]);
    const { tools } = await mcp.listTools();
    for (const name of ['demo_deep', 'demo_huge']) {
      const listed = tools.find((t) => t.name === name);
      expect(listed?.inputSchema).toEqual({ type: 'object' });
      expect(listed).not.toHaveProperty('outputSchema');
      expect(String(listed?._meta?.['toolwire/schemaNotes'])).toMatch(
        name === 'demo_deep' ? `deeper than ${MAX_DEPTH}` : `over ${MAX_CHARS}`,
      );
    }
    // No outputSchema listed: the result is text alone, and the client takes it.
    const deepCall = await mcp.callTool({ name: 'demo_deep', arguments: {} });
    expect(deepCall.structuredContent).toBeUndefined();
    expect(deepCall.content).toEqual([{ type: 'text', text: '{"x":{}}' }]);
  });

  it('linearPattern passes deterministic anchored patterns and nothing it cannot read', () => {
    for (const ok of ['^[a-z]+$', '^[a-z0-9_-]{1,64}$', '^\\d+-\\d+$', '^image/', 'abc', '^$'])
      expect(linearPattern(ok), ok).toBe(true);
    for (const bad of [
      HOSTILE,
      '^(a+)+$',
      '^a*a*b$',
      'a+b',
      '^(\\w)\\1$',
      '^(?=a)a$',
      '^[a-z]*[a-z0-9]$',
      '^a{1,3}?$',
      '\\p{L}+',
      '^[',
      'x'.repeat(600),
      '[a-z]{9999}',
    ])
      expect(linearPattern(bad), bad).toBe(false);
  });
});
