import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { sessionOpen } from '@toolwire/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { readControlState } from '../src/internal.js';
import { cli, hostInProcess, RAW_CONTROL, tempDir } from './cli-helpers.js';
import { FakePage, type FakePageOptions, tool } from './helpers.js';

// Issue 13 part 7, the CLI's side: with several pages connected, a call without --session goes
// nowhere (it used to go to the newest connection: any page of an allowed origin could receive
// the next call's arguments), and `toolwire sessions` never waits on a silent page.

const pages: FakePage[] = [];
const stops: (() => Promise<number>)[] = [];
afterEach(async () => {
  for (const page of pages.splice(0)) page.socket.terminate();
  for (const stop of stops.splice(0)) await stop();
});

async function setup() {
  const env = { TOOLWIRE_STATE: join(tempDir('toolwire-routing-'), 'host.json') };
  const host = await hostInProcess(env);
  stops.push(host.stop);
  return { env, host };
}

async function page(url: string, title: string, options: FakePageOptions = {}) {
  const connected = await FakePage.connect(url, {
    tools: [tool('demo.echo')],
    open: false,
    ...options,
  });
  pages.push(connected);
  connected.send(
    sessionOpen({
      sdk: { name: 'fake-page', version: '1.0.0' },
      page: { origin: 'null', url: `http://app.test/${title}`, title },
      session: `key-${title}`,
    }),
  );
  return connected;
}

async function sessionIds(env: Record<string, string>): Promise<string[]> {
  const { sessions } = JSON.parse((await cli(['sessions', '--json'], env)).out);
  return sessions.map((session: { id: string }) => session.id);
}

describe('several sessions: no call without --session', () => {
  it('one session needs no --session; with two, call, tools and batch refuse (exit 2, 409)', async () => {
    const { env, host } = await setup();
    const first = await page(host.url, 'First');
    await until(() => host.err().includes('catalog tools'));
    const alone = await cli(['call', 'demo.echo', '--args', '{"n":1}'], env);
    expect(alone).toEqual({ code: 0, out: '{\n  "n": 1\n}\n', err: '' });
    expect((await cli(['tools'], env)).code).toBe(0);

    const second = await page(host.url, `Second \x1b]0;pwned\x07`);
    await until(() => host.err().split('catalog tools').length === 3);
    const [a, b] = (await sessionIds(env)).map((id) => id.slice(0, 8));
    const list = `${a} http://app.test/First "First", ${b} http://app.test/Second \\x1b]0;pwned\\x07 "Second \\x1b]0;pwned\\x07"`;
    const batchFile = join(tempDir('toolwire-routing-'), 'batch.json');
    writeFileSync(batchFile, JSON.stringify([{ toolId: 'demo.echo', arguments: { n: 3 } }]));
    for (const argv of [
      ['call', 'demo.echo', '--args', '{"secret":"s3cret"}'],
      ['tools'],
      ['batch', batchFile],
    ]) {
      const run = await cli(argv, env);
      expect(run, argv[0]).toEqual({
        code: 2,
        out: '',
        err: `toolwire: session_ambiguous: 2 sessions are open; pick one with --session: ${list}\n`,
      });
      expect(run.err).not.toMatch(RAW_CONTROL);
    }
    const json = await cli(['call', 'demo.echo', '--json'], env);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.out).error).toMatchObject({
      code: 'session_ambiguous',
      details: { sessions: [{ title: 'First' }, { title: `Second \x1b]0;pwned\x07` }] },
    });
    expect(first.requests('tool.call')).toHaveLength(1);
    expect(second.requests('tool.call')).toHaveLength(0);
    expect(second.requests('tool.batch')).toHaveLength(0);

    // The control API says 409.
    const { port, token } = readControlState(env.TOOLWIRE_STATE) as {
      port: number;
      token: string;
    };
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/call',
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ toolId: 'demo.echo' }));
    });
    expect(status).toBe(409);

    // A session id prefix picks one.
    const picked = await cli(
      ['call', 'demo.echo', '--args', '{"n":2}', '--session', b as string],
      env,
    );
    expect(picked).toEqual({ code: 0, out: '{\n  "n": 2\n}\n', err: '' });
    expect(second.requests('tool.call')).toHaveLength(1);
    expect(first.requests('tool.call')).toHaveLength(1);

    // One left: no --session needed again.
    second.socket.terminate();
    await until(() => host.err().includes(`session ${b} closed`));
    expect((await cli(['call', 'demo.echo'], env)).code).toBe(0);
    expect(first.requests('tool.call')).toHaveLength(2);
  });
});

describe('toolwire sessions never stalls', () => {
  it('a page that never answers tool.query shows as loading, within about a second', async () => {
    const { env, host } = await setup();
    await page(host.url, 'Honest');
    await until(() => host.err().includes('catalog tools'));
    const silent = await page(host.url, 'Silent', {
      intercept: (message) => (message.type === 'tool.query' ? 'hold' : undefined),
    });
    await until(() => silent.requests('tool.query').length > 0);
    // Time is the subject: the listing's wait for first catalogs is the one timer set while it
    // runs, on the test's clock. A second of it, and the listing answers.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let table: Awaited<ReturnType<typeof cli>>;
    try {
      const listing = cli(['sessions'], env);
      await until(() => vi.getTimerCount() > 0);
      await vi.advanceTimersByTimeAsync(1000);
      table = await listing;
    } finally {
      vi.useRealTimers();
    }
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/\n[0-9a-f]{8}\s+-\s+1\s+read\s+-\s+fake-page 1\.0\.0\s+Honest/);
    expect(table.out).toMatch(
      /\n[0-9a-f]{8}\s+-\s+loading\s+read\s+-\s+fake-page 1\.0\.0\s+Silent/,
    );
    const json = JSON.parse((await cli(['sessions', '--json'], env)).out);
    expect(json.sessions.map((s: { tools: number | null }) => s.tools)).toEqual([1, null]);
  });
});
