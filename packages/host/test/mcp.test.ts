import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import type { Host, HostOptions, McpBridge } from '../src/index.js';
import { createHost } from '../src/index.js';
import { MCP_PROTOCOL_VERSIONS, mcpToolName } from '../src/internal.js';
import { FakePage, mcpOverMemory, tool } from './helpers.js';

let host: Host | undefined;
let bridge: McpBridge | undefined;
const pages: FakePage[] = [];

afterEach(async () => {
  await bridge?.close();
  for (const page of pages.splice(0)) page.socket.terminate();
  await host?.close();
  host = bridge = undefined;
});

/** A host and an MCP client over in-memory stdio against its bridge (helpers.ts). */
async function start(options: HostOptions = {}) {
  host = await createHost({ origins: ['*'], ...options });
  const client = await mcpOverMemory(host);
  bridge = client.bridge;
  return { host, ...client };
}

async function page(h: Host, tools = [tool('demo.echo')], key?: string) {
  const connected = await FakePage.connect(h.url, { tools, ...(key ? { key } : {}) });
  pages.push(connected);
  await h.waitForSession({ filter: (s) => s.info?.key === connected.key });
  return connected;
}

describe('the MCP bridge', () => {
  it('initializes with the client version when known, else the newest', async () => {
    const { rpc } = await start();
    const clientInfo = { name: 'test', version: '0' };
    const known = await rpc('initialize', {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo,
    });
    expect(known.result).toMatchObject({
      protocolVersion: '2025-03-26',
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: 'toolwire' },
    });
    const unknown = await rpc('initialize', {
      protocolVersion: '1999-01-01',
      capabilities: {},
      clientInfo,
    });
    expect(unknown.result.protocolVersion).toBe(MCP_PROTOCOL_VERSIONS[0]);
    expect((await rpc('ping')).result).toEqual({});
  });

  it('lists granted tools with MCP-safe names, schemas and annotations', async () => {
    const { host, rpc } = await start({ maxToolPolicy: 'write' });
    await page(host, [
      tool('demo.echo', (a) => a, {
        name: 'Echo',
        argumentsSchema: { properties: { text: { type: 'string' } } },
        resultSchema: { type: 'object' },
      }),
      tool('notes.add', () => ({}), { policy: 'write' }),
      tool('notes.delete', () => ({}), { policy: 'critical' }),
    ]);
    const { result } = await rpc('tools/list');
    // The bridge's own three first, then the page's.
    expect(result.tools.map((t: any) => t.name)).toEqual([
      'toolwire_pair',
      'toolwire_sessions',
      'toolwire_call',
      'demo_echo',
      'notes_add',
    ]);
    result.tools.splice(0, 3);
    expect(result.tools[0]).toMatchObject({
      title: 'Echo',
      description: expect.stringMatching(/^The demo\.echo tool\. \[tab "/),
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true, destructiveHint: false },
      _meta: { 'toolwire/toolId': 'demo.echo', 'toolwire/policy': 'read' },
    });
    expect(result.tools[1].annotations).toMatchObject({ readOnlyHint: false });
    expect(result.tools[1]).not.toHaveProperty('outputSchema');
  });

  // CPU-bound (2,500 tools): its bound is far past what a loaded machine needs.
  it('lists a 2,500-tool page whole in one tools/list, and refuses a cursor (-32602)', async () => {
    const { host, rpc } = await start();
    const ids = Array.from({ length: 2500 }, (_, i) => `bulk.t${String(i).padStart(4, '0')}`);
    await page(
      host,
      ids.map((id) => tool(id)),
    );
    const { result } = await rpc('tools/list');
    expect(result.tools).toHaveLength(2503);
    expect(result.tools.slice(3).map((t: any) => t._meta['toolwire/toolId'])).toEqual(ids);
    expect(result).not.toHaveProperty('nextCursor');
    const paged = await rpc('tools/list', { cursor: 'anything' });
    expect(paged.error).toMatchObject({ code: -32602 });
    expect(paged).not.toHaveProperty('result');
  }, 60_000);

  it("shows a frame's tool as the frame's: _meta, title and description", async () => {
    const { host, rpc } = await start();
    // FakePage says its URL is http://fake.test/.
    await page(host, [
      tool('app.save', () => ({}), { name: 'Save', origin: 'http://fake.test' }),
      tool('calendar.events', () => ({}), {
        name: 'Events',
        description: 'Lists events.',
        origin: 'https://widget.example',
      }),
      tool('ui.get_visual_tree', () => ({}), { name: 'Visual tree' }),
    ]);
    const { result } = await rpc('tools/list');
    const byName = Object.fromEntries(result.tools.map((t: any) => [t.name, t]));
    expect(byName.app_save).toMatchObject({
      title: 'Save',
      // Every tool names its tab: the page's title and origin, and the session's label.
      description: expect.stringMatching(
        /^The app\.save tool\. \[tab "Fake" at null, session [0-9a-f]{8}\]$/,
      ),
      annotations: { title: 'Save' },
      _meta: { 'toolwire/origin': 'http://fake.test' },
    });
    expect(byName.calendar_events).toMatchObject({
      title: 'Events (from https://widget.example)',
      description: expect.stringMatching(
        /^Lists events\. \(from https:\/\/widget\.example, a frame of this page\) \[tab "Fake"/,
      ),
      annotations: { title: 'Events (from https://widget.example)' },
      _meta: { 'toolwire/toolId': 'calendar.events', 'toolwire/origin': 'https://widget.example' },
    });
    // No origin on the wire (a built-in, an older page): nothing is claimed.
    expect(byName.ui_get_visual_tree.title).toBe('Visual tree');
    expect(byName.ui_get_visual_tree._meta).not.toHaveProperty('toolwire/origin');
  });

  it('calls tools: text content, structured content, errors as isError results', async () => {
    const { host, rpc } = await start();
    await page(host, [
      tool('demo.echo', (a) => a, { resultSchema: { type: 'object' } }),
      tool('demo.text', () => 'plain words'),
      tool('demo.fail', () => {
        throw new RangeError('on purpose');
      }),
    ]);
    await rpc('tools/list');
    const echo = await rpc('tools/call', { name: 'demo_echo', arguments: { text: 'hi' } });
    expect(echo.result).toEqual({
      content: [{ type: 'text', text: '{"text":"hi"}' }],
      isError: false,
      structuredContent: { text: 'hi' },
    });
    const text = await rpc('tools/call', { name: 'demo_text' });
    expect(text.result.content).toEqual([{ type: 'text', text: 'plain words' }]);
    const failed = await rpc('tools/call', { name: 'demo_fail', arguments: {} });
    expect(failed.result.isError).toBe(true);
    expect(failed.result.content[0].text).toMatch(/^tool_execution_exception: /);
    expect(failed.result._meta['toolwire/code']).toBe('tool_execution_exception');
    const unknown = await rpc('tools/call', { name: 'nope' });
    expect(unknown.error).toEqual({
      code: -32602,
      message: 'MCP error -32602: Unknown tool: nope',
      data: { 'toolwire/code': 'tool_not_found', 'toolwire/retryable': false },
    });
    // The SDK refuses arguments that are not an object before our handler runs.
    const badArgs = await rpc('tools/call', { name: 'demo_echo', arguments: [1] });
    expect(badArgs.error.code).toBeLessThan(0);
  });

  it('returns an image-shaped result as text unless its schema declares an image', async () => {
    // More in mcp-content.test.ts.
    const { host, rpc } = await start();
    const shot = { mimeType: 'image/png', data: 'iVBORw0K', width: 1, height: 1 };
    await page(host, [tool('ui.shot', () => shot)]);
    const answer = await rpc('tools/call', { name: 'ui_shot' });
    expect(answer.result.content).toEqual([{ type: 'text', text: JSON.stringify(shot) }]);
  });

  it('tells the client when the list changes, once initialized', async () => {
    const { host, rpc, notify, messages } = await start();
    const first = await page(host);
    await rpc('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'test', version: '0' },
    });
    notify('notifications/initialized');
    await rpc('tools/list');
    const changed = () => messages.filter((m) => m.method === 'notifications/tools/list_changed');
    first.setTools([tool('demo.echo'), tool('late.tool')]);
    await first.pushChanged();
    await until(() => changed().length === 1);
    await rpc('tools/list');
    first.socket.terminate();
    await until(() => changed().length === 2);
    const left = (await rpc('tools/list')).result.tools.map((t: any) => t.name);
    expect(left).toEqual(['toolwire_pair', 'toolwire_sessions', 'toolwire_call']);
  });

  it('the first page keeps the plain name of a shared id; both stay callable', async () => {
    const { host, rpc } = await start();
    await page(host, [tool('demo.echo', () => 'old'), tool('a.b'), tool('a_b')]);
    await page(host, [tool('demo.echo', () => 'new')]);
    const [, second] = host.sessions;
    const label = second?.id.replace(/-/g, '').slice(0, 8);
    const names = (await rpc('tools/list')).result.tools.map((t: any) => t.name);
    // Two ids of one page alike after the rewrite: a number; another page's id: its label.
    expect(names.slice(3)).toEqual(['a_b', 'a_b_2', 'demo_echo', `demo_echo__${label}`]);
    expect((await rpc('tools/call', { name: 'demo_echo' })).result.content[0].text).toBe('old');
    const theirs = await rpc('tools/call', { name: `demo_echo__${label}` });
    expect(theirs.result.content[0].text).toBe('new');
  });

  it('stops waiting for a call the client cancels (and, as MCP says, does not answer it)', async () => {
    const { host, input, messages, rpc } = await start();
    await page(host, [tool('demo.slow', () => new Promise(() => {}))]);
    await rpc('tools/list');
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'demo_slow' } })}\n`,
    );
    await until(() => host.sessions[0]?.pendingCount === 1);
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow' } })}\n`,
    );
    await until(() => host.sessions[0]?.pendingCount === 0);
    expect((await rpc('ping')).result).toEqual({});
    expect(messages.some((m) => m.id === 'slow')).toBe(false);
  });

  it('survives malformed input; an unknown method is -32601', async () => {
    const { input, rpc } = await start();
    input.write('this is not json\n');
    input.write('{"jsonrpc":"1.0","id":1,"method":"ping"}\n');
    expect((await rpc('ping')).result).toEqual({});
    expect((await rpc('resources/list')).error.code).toBe(-32601);
  });

  it('speaks the protocol versions the SDK speaks', async () => {
    const { SUPPORTED_PROTOCOL_VERSIONS } = await import('@modelcontextprotocol/sdk/types.js');
    expect(MCP_PROTOCOL_VERSIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
  });

  it('makes ids MCP-safe names', () => {
    expect(mcpToolName('ui.get_visual_tree')).toBe('ui_get_visual_tree');
    expect(mcpToolName('x'.repeat(100))).toHaveLength(64);
    expect(mcpToolName('')).toBe('tool');
  });
});
