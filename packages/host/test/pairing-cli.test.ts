import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { runCommand } from '../src/index.js';
import { captureIo, cli, hostInProcess, tempDir } from './cli-helpers.js';
import { FakePage, type FakePageOptions, tool } from './helpers.js';

// Issue 13, the CLI's side of pairing and of the page's guard: `toolwire pair` mints links,
// `toolwire revoke` ends a tab's pairing, and a tool the page hides with its own guard is
// explained as hidden (never "not found") by `toolwire tools`, `toolwire call` and MCP.

const ORIGIN = 'http://shop.test';
const pages: FakePage[] = [];
const stops: (() => Promise<number>)[] = [];
afterEach(async () => {
  for (const page of pages.splice(0)) page.socket.terminate();
  for (const stop of stops.splice(0)) await stop();
});

async function setup(extra: string[] = []) {
  const env = { TOOLWIRE_STATE: join(tempDir('toolwire-pairing-'), 'host.json') };
  const host = await hostInProcess(env, extra);
  stops.push(host.stop);
  return { env, host };
}

async function connectPage(url: string, options: FakePageOptions = {}) {
  const page = await FakePage.dialAddress(url, { tools: [tool('demo.echo')], ...options });
  pages.push(page);
  return page;
}

const welcome = (page: FakePage): Promise<any> =>
  until(() => page.received.find((message) => message.type === 'session.welcome'), 'a welcome');

describe('toolwire pair and toolwire revoke', () => {
  it('pair --page prints a single-use link; the page spends its code for a credential', async () => {
    const { env, host } = await setup();
    const paired = await cli(['pair', '--page', `${ORIGIN}/cart`], env);
    expect(paired.code, paired.err).toBe(0);
    const link = new URL(paired.out.trim());
    expect(link.origin).toBe(ORIGIN);
    const address = new URLSearchParams(link.hash.slice(1)).get('toolwire') as string;
    expect(new URL(address).searchParams.get('pair')).toMatch(/^[\w-]{22}$/);
    expect(paired.out).not.toContain('token=');
    expect(paired.err).toContain('single use');

    const page = await connectPage(address, { origin: ORIGIN });
    const greeting = await welcome(page);
    expect(greeting.payload).toMatchObject({ maxToolPolicy: 'read' });
    expect(greeting.payload).not.toHaveProperty('credential');
    const credential = await page.paired();
    // The code is spent: a second socket with it is closed with the reason.
    const again = await connectPage(address, { origin: ORIGIN });
    expect(await again.closed).toEqual({
      code: 4401,
      reason: expect.stringContaining('already used'),
    });
    // The credential reconnects (a reload), with no credential in its welcome.
    const base = new URL(address);
    base.searchParams.delete('pair');
    base.searchParams.set('credential', credential);
    const reloaded = await connectPage(base.toString(), { origin: ORIGIN });
    await until(() => reloaded.requests('tool.query').length > 0, 'the query');
    expect(reloaded.hostProven).toBe(true);
    expect(host.url).toContain('token=');
  });

  it('a code made for one page is refused, unspent, from another origin', async () => {
    const { env } = await setup();
    const link = new URL((await cli(['pair', '--page', `${ORIGIN}/`], env)).out.trim());
    const address = new URLSearchParams(link.hash.slice(1)).get('toolwire') as string;
    const other = await connectPage(address, { origin: 'http://evil.test' });
    expect(await other.closed).toMatchObject({
      code: 4401,
      reason: expect.stringContaining('not for pages of http://evil.test'),
    });
    // Still good for its own page.
    const page = await connectPage(address, { origin: ORIGIN });
    expect(await page.paired()).toEqual(expect.any(String));
  });

  it('pair without --page prints the fragment for any allowed page', async () => {
    const { env } = await setup();
    const paired = await cli(['pair', '--json'], env);
    expect(paired.code, paired.err).toBe(0);
    const answer = JSON.parse(paired.out);
    expect(answer.link).toBeNull();
    expect(answer.fragment).toMatch(
      /^#toolwire=ws%3A%2F%2F127\.0\.0\.1%3A\d+%2Ftoolwire%3Fpair%3D/,
    );
    const address = new URLSearchParams(answer.fragment.slice(1)).get('toolwire') as string;
    const page = await connectPage(address, { origin: 'http://any.test' });
    expect(await page.paired()).toEqual(expect.any(String));
  });

  it('revoke closes a paired tab with 4403, and its credential no longer reconnects', async () => {
    const { env } = await setup();
    const link = new URL((await cli(['pair', '--page', `${ORIGIN}/`], env)).out.trim());
    const address = new URLSearchParams(link.hash.slice(1)).get('toolwire') as string;
    const page = await connectPage(address, { origin: ORIGIN });
    const { sessionId } = (await welcome(page)).payload;
    const credential = await page.paired();
    // Revoking names its session: no "newest" default.
    expect((await cli(['revoke'], env)).code).toBe(2);
    const revoked = await cli(['revoke', sessionId.slice(0, 8)], env);
    expect(revoked.code, revoked.err).toBe(0);
    expect(revoked.out).toContain(`revoked session ${sessionId.slice(0, 8)}`);
    expect(await page.closed).toEqual({ code: 4403, reason: 'revoked by the host' });
    const base = new URL(address);
    base.searchParams.delete('pair');
    base.searchParams.set('credential', credential);
    const back = await connectPage(base.toString(), { origin: ORIGIN });
    expect(await back.closed).toMatchObject({ code: 4401 });
    expect((await cli(['sessions', '--json'], env)).out).toContain('"sessions": []');
  });

  it('revoke refuses a session that connected with the page token', async () => {
    const { env, host } = await setup();
    const page = await connectPage(host.url);
    await until(
      async () => JSON.parse((await cli(['sessions', '--json'], env)).out).sessions.length === 1,
    );
    const refused = await cli(['revoke', (await welcome(page)).payload.sessionId], env);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('page token, not a pairing');
  });
});

describe("tools the page's own guard hides", () => {
  const cart = tool('cart.add', () => ({ added: true }), { policy: 'write' });

  it('toolwire tools counts them; toolwire call says denied by the guard, not "not found"', async () => {
    const { env, host } = await setup(['--max-tool-policy', 'write']);
    // The honest path: with a read-write guard the same tool is listed and runs.
    const open = await connectPage(host.url, {
      tools: [cart],
      guard: 'read-write',
      reportGuard: true,
    });
    await until(async () => (await cli(['tools'], env)).out.includes('cart.add'));
    expect((await cli(['call', 'cart.add'], env)).out).toContain('"added": true');
    open.socket.terminate();
    await until(async () =>
      (await cli(['sessions', '--json'], env)).out.includes('"sessions": []'),
    );

    await connectPage(host.url, {
      tools: [tool('demo.echo'), cart],
      guard: 'read-only',
      reportGuard: true,
    });
    await until(async () => (await cli(['tools'], env)).out.includes('demo.echo'));
    const listed = await cli(['tools'], env);
    expect(listed.out).not.toMatch(/^cart\.add/m);
    expect(listed.out).toContain(
      "1 tool hidden by the page's guard (read-only): cart.add (write); the page's author sets the guard",
    );
    expect(listed.out).toContain('page guard read-only');
    const json = JSON.parse((await cli(['tools', '--json'], env)).out);
    expect(json.session).toMatchObject({
      guard: 'read-only',
      hidden: [{ id: 'cart.add', policy: 'write' }],
    });
    const called = await cli(['call', 'cart.add'], env);
    expect(called.code).toBe(1);
    expect(called.err).toContain(
      'tool_execution_denied: Tool "cart.add" (policy write) is hidden by the page\'s guard (read-only)',
    );
    expect(called.err).not.toContain('tool_not_found');
    // Not the grant: no --max-tool-policy would let it through.
    expect(called.err).not.toContain('--max-tool-policy');
    const calledJson = JSON.parse((await cli(['call', 'cart.add', '--json'], env)).out);
    expect(calledJson.error).toMatchObject({
      code: 'tool_execution_denied',
      retryable: false,
      details: { deniedBy: 'page-guard', toolId: 'cart.add', policy: 'write', guard: 'read-only' },
    });
  });

  it('MCP (attached) explains a hidden tool, and one above the grant, instead of "Unknown tool"', async () => {
    const { env, host } = await setup();
    const stdin = new PassThrough();
    const run = captureIo(env, stdin);
    const exited = runCommand(['mcp', '--attach'], run.io);
    const messages: any[] = [];
    createInterface({ input: run.io.stdout }).on('line', (line) => messages.push(JSON.parse(line)));
    let nextId = 1;
    const rpc = async (method: string, params?: object): Promise<any> => {
      const id = nextId++;
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      await until(() => messages.some((m) => m.id === id));
      return messages.find((m) => m.id === id);
    };
    try {
      await rpc('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'test', version: '0' },
      });
      await connectPage(host.url, {
        tools: [tool('demo.echo'), cart, tool('notes.delete', () => null, { policy: 'critical' })],
        guard: 'read-write',
        reportGuard: true,
      });
      // demo.echo is offered (the honest path); cart.add is above the read grant; the critical
      // tool is hidden by the page's read-write guard.
      await until(async () =>
        (await rpc('tools/list')).result.tools.some((t: any) => t.name === 'demo_echo'),
      );
      const listed = (await rpc('tools/list')).result;
      expect(listed.tools.map((t: any) => t.name)).toEqual([
        'toolwire_pair',
        'toolwire_sessions',
        'toolwire_call',
        'demo_echo',
      ]);
      expect(listed._meta['toolwire/note']).toBe(
        "1 tool hidden by the page's guard (read-write): notes.delete; 1 tool above the host's grant (read): cart.add",
      );
      const hidden = (await rpc('tools/call', { name: 'notes_delete', arguments: {} })).result;
      expect(hidden).toMatchObject({
        isError: true,
        _meta: { 'toolwire/code': 'tool_execution_denied', 'toolwire/retryable': false },
      });
      expect(hidden.content[0].text).toContain('"deniedBy":"page-guard"');
      expect(hidden.content[0].text).not.toContain('--max-tool-policy');
      const grant = (await rpc('tools/call', { name: 'cart_add', arguments: {} })).result;
      expect(grant).toMatchObject({
        isError: true,
        _meta: { 'toolwire/code': 'tool_execution_denied', 'toolwire/retryable': false },
      });
      expect(grant.content[0].text).toContain('"deniedBy":"host-grant"');
      expect(grant.content[0].text).toContain('--max-tool-policy write');
      const unknown = await rpc('tools/call', { name: 'no_such_tool', arguments: {} });
      expect(unknown.error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool'),
        data: { 'toolwire/code': 'tool_not_found', 'toolwire/retryable': false },
      });
      const echo = (await rpc('tools/call', { name: 'demo_echo', arguments: { a: 1 } })).result;
      expect(echo.isError).toBe(false);
    } finally {
      stdin.end();
      await exited;
    }
  });
});
