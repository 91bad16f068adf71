// `toolwire pairings` and `toolwire revoke --pairing/--all`, with a host running (the control
// API) and with none (the pairings file), and `toolwire host`'s use of the pairings file
// (--no-keep-pairings; a directory it cannot trust). Pages are real sockets (FakePage).
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { openPairingFile } from '../src/index.js';
import { cli, hostInProcess, RAW_CONTROL, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';

const A = 'http://a.test';
const B = 'http://b.test';
const pages: FakePage[] = [];
const stops: (() => Promise<number>)[] = [];
afterEach(async () => {
  for (const page of pages.splice(0)) page.socket.terminate();
  for (const stop of stops.splice(0)) await stop();
});

function environment() {
  const root = tempDir('toolwire-pairings-cli-');
  return { TOOLWIRE_STATE: join(root, 'host.json'), TOOLWIRE_HOME: join(root, 'home') };
}

async function start(env: Record<string, string>, extra: string[] = []) {
  const host = await hostInProcess(env, extra);
  stops.push(host.stop);
  return host;
}

/** Pairs a page of `origin` from a fresh `toolwire pair` code; resolves once its tools load. */
async function pairPage(env: Record<string, string>, origin: string) {
  const made = await cli(['pair', '--json'], env);
  expect(made.code, made.err).toBe(0);
  const fragment = decodeURIComponent(JSON.parse(made.out).fragment.slice('#toolwire='.length));
  const page = await FakePage.dialAddress(fragment, {
    origin,
    tools: [tool('demo.echo')],
    guard: 'read-only',
    reportGuard: true,
  });
  pages.push(page);
  await page.paired();
  // The host keeps the pairing once the page proved itself; its first request follows.
  await until(() => page.received.find((message) => message.type === 'tool.query'));
  return page;
}

const listed = async (env: Record<string, string>) => {
  const run = await cli(['pairings', '--json'], env);
  expect(run.code, run.err).toBe(0);
  return JSON.parse(run.out);
};

describe('toolwire pairings and revoke --pairing/--all', () => {
  it('lists the pairings of a running host, escaped, then from the file once it stopped', async () => {
    const env = environment();
    const host = await start(env);
    expect(host.err()).toContain(`pairings kept in ${join(env.TOOLWIRE_HOME, 'pairings.json')}`);
    await pairPage(env, A);
    // A client may send any Origin: a C1 control character in it reaches no terminal raw.
    const hostile = 'http://b\u009b31m.test';
    await pairPage(env, hostile);
    await until(async () => (await listed(env)).pairings.every((p: any) => p.guard !== null));

    const json = await listed(env);
    expect(json.host).toBe(true);
    const hostId = openPairingFile(env.TOOLWIRE_HOME).identity?.id;
    expect(json.hostId).toBe(hostId);
    expect(json.pairings).toMatchObject([
      { origin: A, kind: 'link', guard: 'read-only', connected: true },
      { origin: hostile, kind: 'link', guard: 'read-only', connected: true },
    ]);
    expect(JSON.stringify(json)).not.toContain('secret');
    const table = await cli(['pairings'], env);
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/^PAIRING\s+KIND\s+ORIGIN\s+GUARD\s+CONNECTED\s+LAST SEEN\n/);
    const id = (json.pairings[0].id as string).slice(0, 8);
    expect(table.out).toMatch(
      new RegExp(`\\n${id}\\s+link\\s+http://a\\.test\\s+read-only\\s+yes\\s+now \\(\\d{4}-`),
    );
    expect(table.out).not.toMatch(RAW_CONTROL);
    expect(table.out).toContain('\\u009b');

    expect(await host.stop()).toBe(0);
    stops.length = 0;
    const offline = await cli(['pairings'], env);
    expect(offline.code, offline.err).toBe(0);
    expect(offline.err).toBe(
      `toolwire: no host is running; the pairings kept in ${join(env.TOOLWIRE_HOME, 'pairings.json')}:\n`,
    );
    expect(offline.out).toMatch(
      new RegExp(`\\n${id}\\s+link\\s+http://a\\.test\\s+read-only\\s+-\\s+just now`),
    );
    expect(offline.out).not.toMatch(RAW_CONTROL);
    const offlineJson = await listed(env);
    expect(offlineJson).toMatchObject({ host: false, hostId, pairings: [{ connected: null }, {}] });
  });

  it('revoke --pairing closes that tab (4403) and keeps the other; --all forgets the rest', async () => {
    const env = environment();
    await start(env);
    const first = await pairPage(env, A);
    const second = await pairPage(env, B);
    const [one, two] = (await listed(env)).pairings;
    const revoked = await cli(['revoke', `--pairing=${one.id.slice(0, 6)}`], env);
    expect(revoked.code, revoked.err).toBe(0);
    expect(revoked.out).toBe(`revoked pairing ${one.id.slice(0, 8)}  link  ${A}\n`);
    expect(await first.closed).toEqual({ code: 4403, reason: 'revoked by the host' });
    expect((await listed(env)).pairings).toMatchObject([{ id: two.id, connected: true }]);
    expect(second.socket.readyState).toBe(second.socket.OPEN);
    // Gone: the same prefix now names nothing.
    const again = await cli(['revoke', `--pairing=${one.id.slice(0, 6)}`], env);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/^toolwire: pairing_not_found: /);

    const all = await cli(['revoke', '--all', '--json'], env);
    expect(all.code, all.err).toBe(0);
    expect(JSON.parse(all.out)).toMatchObject({ host: true, revoked: [{ id: two.id }] });
    expect(await second.closed).toEqual({ code: 4403, reason: 'revoked by the host' });
    expect((await listed(env)).pairings).toEqual([]);
    expect(readFileSync(join(env.TOOLWIRE_HOME, 'pairings.json'), 'utf8')).not.toContain(two.id);
  });

  it('a prefix naming two pairings is refused, naming both, with a host and without', async () => {
    const env = environment();
    const now = Date.now();
    const store = openPairingFile(env.TOOLWIRE_HOME);
    for (const [id, origin] of [
      ['abc1aaaaaaaaaaaaaaaaaa', A],
      ['abc2bbbbbbbbbbbbbbbbbb', B],
    ] as const) {
      store.put({ id, secret: `s-${id}`, origin, kind: 'link', createdAt: now, lastSeen: now });
    }
    // Without a host: the file. The honest prefix first.
    const ambiguous = await cli(['revoke', '--pairing', 'abc'], env);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.err).toBe(
      `toolwire: pairing_ambiguous: Pairing "abc" matches 2 pairings: abc1aaaa ${A}, abc2bbbb ${B}; give more of the id\n`,
    );
    expect((await listed(env)).pairings).toHaveLength(2);
    const one = await cli(['revoke', '--pairing', 'abc1'], env);
    expect(one.code, one.err).toBe(0);
    expect(one.err).toBe('toolwire: no host is running; revoked in the pairings file\n');
    expect((await listed(env)).pairings.map((p: any) => p.id)).toEqual(['abc2bbbbbbbbbbbbbbbbbb']);
    store.put({
      id: 'abc3cccccccccccccccccc',
      secret: 's',
      origin: A,
      kind: 'extension',
      createdAt: now,
      lastSeen: now,
    });

    // With a host: the control API says the same (409, exit 2).
    await start(env);
    const live = await cli(['revoke', '--pairing', 'abc', '--json'], env);
    expect(live.code).toBe(2);
    expect(JSON.parse(live.out).error).toMatchObject({
      code: 'pairing_ambiguous',
      details: { pairings: ['abc2bbbbbbbbbbbbbbbbbb', 'abc3cccccccccccccccccc'] },
    });
    expect(live.err).toContain(`abc2bbbb ${B}, abc3cccc ${A}`);
    const dashed = await cli(['revoke', '--pairing', '-abc'], env);
    expect(dashed).toMatchObject({
      code: 2,
      err: 'toolwire revoke: --pairing\'s value starts with "-": write --pairing=VALUE; see toolwire revoke --help\n',
    });
    const usage = await cli(['revoke', '--pairing', 'abc2', '--all'], env);
    expect(usage.code).toBe(2);
    expect(usage.err).toBe('toolwire: give one of SESSION, --pairing ID or --all\n');
    expect((await listed(env)).pairings).toHaveLength(2);
  });

  it('revoke --all with no host empties the file; revoke SESSION still needs a host', async () => {
    const env = environment();
    const now = Date.now();
    const store = openPairingFile(env.TOOLWIRE_HOME);
    store.put({
      id: 'x'.repeat(22),
      secret: 's',
      origin: A,
      kind: 'link',
      createdAt: now,
      lastSeen: now,
    });
    expect((await listed(env)).pairings).toHaveLength(1);
    const session = await cli(['revoke', '1a2b3c4d'], env);
    expect(session.code).toBe(3);
    expect(session.err).toMatch(/^toolwire: no toolwire host is running/);
    const all = await cli(['revoke', '--all'], env);
    expect(all.code, all.err).toBe(0);
    expect(all.out).toBe(`revoked pairing xxxxxxxx  link  ${A}\nrevoked 1 pairing\n`);
    expect((await listed(env)).pairings).toEqual([]);
    expect(openPairingFile(env.TOOLWIRE_HOME).identity).toEqual(store.identity);
  });

  it('--no-keep-pairings leaves the file alone; a directory others may use stops the host', async () => {
    const env = environment();
    // (--no-mcp-http too: the MCP secret would be kept in the same directory.)
    const host = await start(env, ['--no-keep-pairings', '--no-mcp-http']);
    expect(host.err()).toContain('pairings last this run only (--no-keep-pairings)');
    await pairPage(env, A);
    expect((await listed(env)).pairings).toMatchObject([{ origin: A, connected: true }]);
    expect(existsSync(env.TOOLWIRE_HOME)).toBe(false);

    const open = environment();
    mkdirSync(open.TOOLWIRE_HOME, { mode: 0o700 });
    chmodSync(open.TOOLWIRE_HOME, 0o755);
    const refused = await cli(['host', '--port', '0', '--allow-origin', '*'], open);
    expect(refused.code).toBe(1);
    expect(refused.err).toBe(
      `toolwire host: refusing the pairings directory ${open.TOOLWIRE_HOME}: mode 0755, not 0700 (chmod 700 it, or --no-keep-pairings runs without it)\n`,
    );
  });
});
