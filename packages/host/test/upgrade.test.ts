import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import type { Host } from '../src/index.js';
import { createHost } from '../src/index.js';
import { authorizeUpgrade, createToken, redactUrl, tokensEqual } from '../src/internal.js';
import { FakePage } from './helpers.js';

const TOKEN = 'test-token-0123456789abcdef';

describe('tokens', () => {
  it('are 128 random bits, URL-safe, new each time', () => {
    const a = createToken();
    const b = createToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(16);
    expect(a).not.toBe(b);
  });

  it('compare exactly, in constant time over equal-length digests', () => {
    expect(tokensEqual(TOKEN, TOKEN)).toBe(true);
    expect(tokensEqual(`${TOKEN}x`, TOKEN)).toBe(false);
    expect(tokensEqual('', TOKEN)).toBe(false);
  });

  it('are redacted in plain and percent-encoded URLs', () => {
    const url = `ws://127.0.0.1:1/toolwire?token=${TOKEN}`;
    expect(redactUrl(url)).toBe('ws://127.0.0.1:1/toolwire?token=test…');
    const page = `http://x.test/#toolwire=${encodeURIComponent(url)}`;
    expect(redactUrl(page)).not.toContain(TOKEN);
  });
});

describe('authorizeUpgrade', () => {
  const policy = { path: '/toolwire', token: TOKEN };
  const check = (url: string, origin?: string, origins?: string[]) =>
    authorizeUpgrade({ url, headers: origin ? { origin } : {} }, { ...policy, origins });

  it('checks the path, then the token, then the origin', () => {
    expect(check(`/other?token=${TOKEN}`)).toMatchObject({ ok: false, status: 404 });
    expect(check('/toolwire')).toMatchObject({ ok: false, status: 401, reason: 'no token' });
    expect(check('/toolwire?token=nope')).toMatchObject({ ok: false, status: 401 });
    // Default deny: no list (or an empty one) refuses every origin, and a missing one.
    expect(check(`/toolwire?token=${TOKEN}`, 'http://a.test')).toMatchObject({ status: 403 });
    expect(check(`/toolwire?token=${TOKEN}`, 'http://a.test', [])).toMatchObject({ status: 403 });
    expect(check(`/toolwire?token=${TOKEN}`)).toMatchObject({ status: 403 });
    // An explicit '*' accepts any origin, or none; the token still applies.
    expect(check(`/toolwire?token=${TOKEN}`, 'http://a.test', ['*'])).toEqual({
      ok: true,
      origin: 'http://a.test',
      via: 'token',
    });
    expect(check(`/toolwire?token=${TOKEN}`, undefined, ['*'])).toEqual({
      ok: true,
      origin: null,
      via: 'token',
    });
    expect(check('/toolwire?token=nope', 'http://a.test', ['*'])).toMatchObject({ status: 401 });
    const list = ['http://a.test'];
    expect(check(`/toolwire?token=${TOKEN}`, 'http://b.test', list)).toMatchObject({
      status: 403,
    });
    expect(check(`/toolwire?token=${TOKEN}`, undefined, list)).toMatchObject({ status: 403 });
    expect(check('/toolwire?token=nope', 'http://b.test', list)).toMatchObject({ status: 401 });
    expect(check(`/toolwire?token=${TOKEN}`, 'http://a.test', list)).toMatchObject({ ok: true });
  });
});

describe('the host answers upgrades', () => {
  let host: Host | undefined;
  const lines: string[] = [];

  afterEach(async () => {
    await host?.close();
    host = undefined;
    lines.length = 0;
  });

  const statusOf = (url: string, origin?: string) =>
    new Promise<number>((resolve) => {
      const socket = new WebSocket(url, origin ? { origin } : {});
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.on('open', () => {
        socket.close();
        resolve(101);
      });
      socket.on('error', () => {});
    });

  it('404 wrong path, 401 wrong token, 403 foreign origin, 101 otherwise', async () => {
    host = await createHost({
      token: TOKEN,
      origins: ['http://localhost:5181/'],
      log: (line) => lines.push(line),
    });
    const base = `ws://127.0.0.1:${host.port}`;
    expect(await statusOf(`${base}/elsewhere?token=${TOKEN}`, 'http://localhost:5181')).toBe(404);
    expect(await statusOf(`${base}/toolwire?token=wrong`, 'http://localhost:5181')).toBe(401);
    expect(await statusOf(`${base}/toolwire?token=${TOKEN}`, 'http://127.0.0.1:5181')).toBe(403);
    expect(await statusOf(host.url, 'http://localhost:5181')).toBe(101);
    expect(lines.join('\n')).not.toContain(TOKEN);
    // One line per origin per interval: the two refusals from localhost:5181 make one line.
    const refused = lines.filter((line) => line.startsWith('refused'));
    expect(refused).toHaveLength(2);
    expect(refused[0]).toContain('from http://localhost:5181: 404 (wrong path)');
    expect(refused[1]).toContain('from http://127.0.0.1:5181: 403');
  });

  it('logs refusals once per origin per interval, then with the count it held back', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      host = await createHost({ token: TOKEN, log: (line) => lines.push(line) });
      const url = `ws://127.0.0.1:${host.port}/toolwire?token=wrong`;
      for (let i = 0; i < 5; i++) expect(await statusOf(url, 'http://evil.test')).toBe(401);
      expect(await statusOf(url, 'http://other.test')).toBe(401);
      let refused = lines.filter((line) => line.startsWith('refused'));
      expect(refused).toEqual([
        expect.stringContaining('from http://evil.test: 401 (wrong token)'),
        expect.stringContaining('from http://other.test: 401 (wrong token)'),
      ]);
      vi.setSystemTime(Date.now() + 10_001);
      expect(await statusOf(url, 'http://evil.test')).toBe(401);
      refused = lines.filter((line) => line.startsWith('refused'));
      expect(refused).toHaveLength(3);
      expect(refused[2]).toContain('(and 4 more since the last line)');
    } finally {
      vi.useRealTimers();
    }
  });

  it('plain HTTP gets 426 on the path and 404 elsewhere', async () => {
    host = await createHost();
    const get = (path: string) =>
      new Promise<number>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port: host?.port, path }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        })
          .on('error', reject)
          .end();
      });
    expect(await get('/toolwire')).toBe(426);
    expect(await get('/')).toBe(404);
  });

  it('refuses every origin until one is allowed; logs a warning for *', async () => {
    host = await createHost({ token: TOKEN, log: (line) => lines.push(line) });
    expect(host.origins).toEqual([]);
    expect(await statusOf(host.url, 'http://localhost:5181')).toBe(403);
    expect(await statusOf(host.url)).toBe(403);
    expect(lines.join('\n')).toContain('no origin is allowed');
    await host.close();
    lines.length = 0;
    host = await createHost({ token: TOKEN, origins: ['*'], log: (line) => lines.push(line) });
    expect(await statusOf(host.url, 'http://anything.test')).toBe(101);
    expect(await statusOf(host.url)).toBe(101);
    expect(lines.join('\n')).toMatch(/warning: any origin may connect/);
  });

  it('gives each connection its own session id and records the Origin header', async () => {
    host = await createHost({ token: TOKEN, origins: ['http://a.test', 'http://b.test'] });
    const seen: string[] = [];
    host.on('session', (session) => seen.push(session.id));
    const a = await FakePage.connect(host.url, { origin: 'http://a.test' });
    const b = await FakePage.connect(host.url, { origin: 'http://b.test' });
    const sessions = await Promise.all([
      host.waitForSession({ filter: (s) => s.origin === 'http://a.test' }),
      host.waitForSession({ filter: (s) => s.origin === 'http://b.test' }),
    ]);
    expect(new Set(seen).size).toBe(2);
    expect(sessions.map((s) => s.id).sort()).toEqual([...seen].sort());
    expect(a.received[0].sessionId).not.toBe(b.received[0].sessionId);
    await a.close();
    await b.close();
  });

  it('waitForSession rejects with session_not_connected when no page comes', async () => {
    host = await createHost();
    await expect(host.waitForSession({ timeoutMs: 50 })).rejects.toMatchObject({
      code: 'session_not_connected',
      retryable: true,
    });
  });

  it('pairingUrl puts a single-use code, never the page token, in the fragment', async () => {
    host = await createHost({ token: TOKEN });
    const url = new URL(host.pairingUrl('http://localhost:5181/app?x=1#tab=2'));
    const fragment = new URLSearchParams(url.hash.slice(1));
    expect(url.search).toBe('?x=1');
    expect(fragment.get('tab')).toBe('2');
    const connect = new URL(fragment.get('toolwire') as string);
    expect(`${connect.origin.replace('http', 'ws')}${connect.pathname}`).toBe(host.address);
    expect(connect.searchParams.get('pair')).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(url.toString()).not.toContain(TOKEN);
    expect(fragment.has('toolwire-guard')).toBe(false);
    // Two links, two codes.
    expect(host.pairingUrl('http://localhost:5181/app')).not.toBe(
      host.pairingUrl('http://localhost:5181/app'),
    );
  });
});
