import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createHost, createMcpBridge } from '../src/index.js';
import { controlToolSource, startControlServer } from '../src/internal.js';
import { FakePage, tool } from './helpers.js';

// An attached bridge forwards a call's result as the JSON text the host wrote: the channel
// answers `raw: true` calls with the value after the message, and the bridge's answers are
// the host's own bridge's, for every result shape. Real sockets: host, control API, `ws` page.

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const TYPED = {
  type: 'object',
  properties: { n: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['n'],
};
const VALUES: Record<string, unknown> = {
  'demo.object': { a: 1, b: [true, null, 'x "quoted"\n'], c: { d: -0.5 } },
  'demo.string': 'a "string" with\na line break',
  'demo.number': 42,
  'demo.null': null,
  'demo.array': [1, { two: 2 }],
  'demo.typed': { n: 7, tags: ['a', 'b'] },
  'demo.unicode': { text: 'café ☕ \u2028 \ud83d\ude00' },
};

async function hostWithPage() {
  const host = await createHost({ origins: ['*'] });
  cleanup.push(() => host.close());
  const tools = Object.entries(VALUES).map(([id, value]) =>
    tool(id, () => value, id === 'demo.typed' ? { resultSchema: TYPED } : {}),
  );
  tools.push(tool('demo.fails', () => Promise.reject(new Error('it broke'))));
  const page = await FakePage.connect(host.url, { tools });
  cleanup.push(() => page.socket.terminate());
  const session = await host.waitForSession({
    filter: (s) => s.catalog.get('demo.fails') !== undefined,
  });
  const control = await startControlServer(host);
  cleanup.push(() => control.close());
  return { host, session, control };
}

function mcpClient(source: Parameters<typeof createMcpBridge>[0]) {
  const input = new PassThrough();
  const output = new PassThrough();
  const bridge = createMcpBridge(source, { input, output });
  cleanup.push(() => bridge.close());
  const pending = new Map<number, (message: any) => void>();
  createInterface({ input: output }).on('line', (line) => {
    const message = JSON.parse(line);
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  let nextId = 0;
  return (method: string, params: object): Promise<any> =>
    new Promise((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
}

/** The channel spoken by hand: each message's text as it came. */
async function rawChannel(control: { url: string; token: string }) {
  const url = new URL('/v1/channel', control.url);
  url.protocol = 'ws:';
  const socket = new WebSocket(url, { headers: { Authorization: `Bearer ${control.token}` } });
  cleanup.push(() => socket.terminate());
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const texts: string[] = [];
  socket.on('message', (data) => texts.push(data.toString()));
  let nextId = 0;
  return async (message: object): Promise<string> => {
    const id = ++nextId;
    socket.send(JSON.stringify({ id, ...message }));
    for (;;) {
      const found = texts.find((text) => text.startsWith(`{"id":${id},`));
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
}

describe('an attached call forwards the result as the host wrote it', () => {
  it('the channel answers a raw call with the value after the message, and only such a call', async () => {
    const { session, control } = await hostWithPage();
    const ask = await rawChannel(control);
    const body = { session: session.id, toolId: 'demo.object', arguments: {} };
    // Honest path first: without `raw`, one JSON message with the whole result in it.
    const plain = await ask({ method: 'POST', path: '/v1/call', body });
    expect(plain).not.toContain('\n');
    const parsed = JSON.parse(plain);
    expect(parsed.answer.result.result).toEqual(VALUES['demo.object']);

    const raw = await ask({ method: 'POST', path: '/v1/call', body, raw: true });
    const cut = raw.indexOf('\n');
    expect(cut).toBeGreaterThan(0);
    const head = JSON.parse(raw.slice(0, cut));
    expect(head).toMatchObject({ status: 200, raw: true, answer: { ok: true } });
    expect(head.answer.result).not.toHaveProperty('result');
    expect(head.answer.result.toolId).toBe('demo.object');
    expect(raw.slice(cut + 1)).toBe(JSON.stringify(VALUES['demo.object']));

    // A failed call, another route, and a batch answer as before, `raw` or not.
    const failed = await ask({
      method: 'POST',
      path: '/v1/call',
      body: { ...body, toolId: 'demo.fails' },
      raw: true,
    });
    expect(failed).not.toContain('\n');
    expect(JSON.parse(failed).answer.ok).toBe(false);
    const listed = await ask({ method: 'GET', path: '/v1/sessions', raw: true });
    expect(listed).not.toContain('\n');
    const batch = await ask({
      method: 'POST',
      path: '/v1/batch',
      body: { session: session.id, calls: [{ toolId: 'demo.string', arguments: {} }] },
      raw: true,
    });
    expect(batch).not.toContain('\n');
    expect(JSON.parse(batch).answer.ok).toBe(true);
  });

  it("an attached bridge answers every result shape as the host's own bridge does", async () => {
    const { host, control } = await hostWithPage();
    const own = mcpClient(host);
    const attached = mcpClient(controlToolSource({ url: control.url, token: control.token }));
    for (const rpc of [own, attached]) {
      const listed = await rpc('tools/list', {});
      expect(listed.result.tools.map((one: { name: string }) => one.name)).toContain('demo_typed');
    }
    for (const id of [...Object.keys(VALUES), 'demo.fails']) {
      const name = id.replace('.', '_');
      const mine = await own('tools/call', { name, arguments: {} });
      const theirs = await attached('tools/call', { name, arguments: {} });
      expect(theirs.result, id).toEqual(mine.result);
      if (id === 'demo.fails') {
        expect(theirs.result.isError).toBe(true);
        continue;
      }
      const value = VALUES[id];
      expect(theirs.result.isError, id).toBe(false);
      expect(theirs.result.content, id).toEqual([
        { type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) },
      ]);
      if (id === 'demo.typed') expect(theirs.result.structuredContent).toEqual(value);
      else expect(theirs.result, id).not.toHaveProperty('structuredContent');
    }
  });
});
