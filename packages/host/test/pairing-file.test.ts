// The pairings file and the host identity (server/pairing-file.ts): where it is, its modes, what
// it refuses, two writers sharing it, the 30-day expiry, and a real host that restarts on the
// same port and still knows its tabs. Every refusal follows the honest case in the same test.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { credentialSecret, secretId } from '@toolwire/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Host } from '../src/index.js';
import { createHost, MemoryPairingStore, openPairingFile, pairingHome } from '../src/index.js';
import { FilePairingStore, nodeHmac, PAIRING_IDLE_EXPIRY_MS, Pairing } from '../src/internal.js';
import { tempDir } from './cli-helpers.js';
import { FakePage, handshakeUrl } from './helpers.js';

const A = 'http://a.test';
const B = 'http://b.test';
const DAY = 24 * 60 * 60_000;
const posix = process.platform !== 'win32';
const mode = (path: string) => statSync(path).mode & 0o777;

const record = (id: string, lastSeen: number, origin = A) => ({
  id,
  secret: `secret-${id}`,
  origin,
  kind: 'link' as const,
  createdAt: lastSeen,
  lastSeen,
});

describe('pairingHome', () => {
  it('TOOLWIRE_HOME, else XDG_STATE_HOME/toolwire, else ~/.local/state/toolwire or %LOCALAPPDATA%', () => {
    expect(pairingHome({ TOOLWIRE_HOME: '/t/h', XDG_STATE_HOME: '/x' }, 'linux')).toBe('/t/h');
    expect(pairingHome({ XDG_STATE_HOME: '/x', HOME: '/u' }, 'linux')).toBe('/x/toolwire');
    // A relative XDG_STATE_HOME is ignored, as the XDG spec says.
    expect(pairingHome({ XDG_STATE_HOME: 'rel', HOME: '/u' }, 'linux')).toBe(
      '/u/.local/state/toolwire',
    );
    expect(pairingHome({ HOME: '/u' }, 'darwin')).toBe('/u/.local/state/toolwire');
    expect(pairingHome({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32')).toBe(
      join('C:\\Users\\u\\AppData\\Local', 'toolwire'),
    );
  });
});

describe('the pairings file', () => {
  it('is made 0600 in a directory made 0700 (parents too), and keeps one identity across loads', () => {
    const root = tempDir('toolwire-pairings-');
    const dir = join(root, 'deep', 'toolwire');
    const store = openPairingFile(dir);
    expect(store.path).toBe(join(dir, 'pairings.json'));
    if (posix) {
      expect(mode(dir)).toBe(0o700);
      expect(mode(store.path)).toBe(0o600);
    }
    const id = store.identity?.id as string;
    expect(id).toMatch(/^[\w-]{22}$/);
    store.put(record('one', Date.now()));
    if (posix) expect(mode(store.path)).toBe(0o600);
    const again = openPairingFile(dir);
    expect(again.identity).toEqual(store.identity);
    expect(again.list().map((r) => r.id)).toEqual(['one']);
    expect(again.get('one')?.secret).toBe('secret-one');
    // Another directory is another host.
    expect(openPairingFile(join(root, 'other')).identity?.id).not.toBe(id);
  });

  it.runIf(posix)(
    'refuses a directory or file others may use, a link, or not ours, with one line',
    () => {
      const root = tempDir('toolwire-pairings-');
      // Honest: a 0700 directory the user made is taken.
      const good = join(root, 'good');
      mkdirSync(good, { mode: 0o700 });
      expect(openPairingFile(good).list()).toEqual([]);

      const open = join(root, 'open');
      mkdirSync(open, { mode: 0o700 });
      chmodSync(open, 0o755);
      expect(() => openPairingFile(open)).toThrow(
        `refusing the pairings directory ${open}: mode 0755, not 0700`,
      );

      const link = join(root, 'link');
      symlinkSync(good, link);
      expect(() => openPairingFile(link)).toThrow(
        `refusing the pairings directory ${link}: a symbolic link`,
      );

      const loose = join(root, 'loose');
      openPairingFile(loose);
      chmodSync(join(loose, 'pairings.json'), 0o644);
      expect(() => openPairingFile(loose)).toThrow(
        `refusing the pairings file ${join(loose, 'pairings.json')}: mode 0644, not 0600`,
      );

      const linked = join(root, 'linked');
      mkdirSync(linked, { mode: 0o700 });
      symlinkSync(join(good, 'pairings.json'), join(linked, 'pairings.json'));
      expect(() => openPairingFile(linked)).toThrow(
        `refusing the pairings file ${join(linked, 'pairings.json')}: a symbolic link`,
      );
    },
  );

  it('refuses a corrupt file with one line, and leaves it as it was', () => {
    const dir = tempDir('toolwire-pairings-');
    const store = openPairingFile(dir);
    store.put(record('one', Date.now()));
    expect(openPairingFile(dir).list()).toHaveLength(1);
    for (const text of ['{not json', '[]', '{"version":2,"pairings":[]}', '{"version":1}']) {
      writeFileSync(store.path, text, { mode: 0o600 });
      let message = '';
      try {
        openPairingFile(dir);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toBe(
        `refusing the pairings file ${store.path}: not a toolwire pairings file`,
      );
      expect(readFileSync(store.path, 'utf8')).toBe(text);
    }
    // A record missing its secret spoils the file too: nothing is half-read.
    writeFileSync(
      store.path,
      JSON.stringify({ version: 1, pairings: [{ ...record('x', Date.now()), secret: 7 }] }),
      { mode: 0o600 },
    );
    expect(() => openPairingFile(dir)).toThrow(/not a toolwire pairings file$/);
  });

  it('two stores on one file (two hosts) each apply only their own change', () => {
    const dir = tempDir('toolwire-pairings-');
    const first = openPairingFile(dir);
    const second = openPairingFile(dir);
    expect(second.identity).toEqual(first.identity);
    const now = Date.now();
    first.put(record('from-first', now));
    second.put(record('from-second', now, B));
    expect(first.list().map((r) => r.id)).toEqual(['from-first', 'from-second']);
    second.touch('from-first', { lastSeen: now + 5, guard: 'read-only' });
    first.delete('from-second');
    expect(second.list()).toEqual([
      { ...record('from-first', now), lastSeen: now + 5, guard: 'read-only' },
    ]);
    expect(second.delete('from-second')).toBe(false);
    expect(first.clear()).toBe(1);
    expect(second.list()).toEqual([]);
    expect(openPairingFile(dir).identity).toEqual(first.identity);
  });

  it('two processes writing at once lose nothing (the lock)', async () => {
    const dir = tempDir('toolwire-pairings-');
    openPairingFile(dir);
    const source = fileURLToPath(new URL('../src/server/pairing-file.ts', import.meta.url));
    const script = `
      const { openPairingFile } = await import(${JSON.stringify(source)});
      const store = openPairingFile(process.argv[1]);
      const now = Date.now();
      for (let i = 0; i < 40; i++) {
        store.put({ id: process.argv[2] + i, secret: 's' + i, origin: null, kind: 'link', createdAt: now, lastSeen: now });
      }`;
    const writer = (tag: string) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            '--conditions=@toolwire/source',
            '--import',
            'tsx',
            '--input-type=module',
            '-e',
            script,
            dir,
            tag,
          ],
          { stdio: ['ignore', 'ignore', 'inherit'] },
        );
        child.on('exit', resolve);
      });
    expect(await Promise.all([writer('a'), writer('b')])).toEqual([0, 0]);
    const ids = new FilePairingStore(dir).list().map((r) => r.id);
    expect(ids).toHaveLength(80);
    for (const tag of ['a', 'b']) for (let i = 0; i < 40; i++) expect(ids).toContain(`${tag}${i}`);
  }, 60_000);

  it('drops pairings unused for 30 days when opened and on every write', () => {
    const dir = tempDir('toolwire-pairings-');
    const clock = { now: 100 * DAY };
    const store = openPairingFile(dir, { now: () => clock.now });
    store.put(record('fresh', clock.now));
    store.put(record('old', clock.now - PAIRING_IDLE_EXPIRY_MS + 1000));
    expect(store.list().map((r) => r.id)).toEqual(['fresh', 'old']);
    // On load: opened two seconds later, "old" is past 30 days and goes from the file.
    clock.now += 2000;
    const reopened = openPairingFile(dir, { now: () => clock.now });
    expect(reopened.list().map((r) => r.id)).toEqual(['fresh']);
    expect(readFileSync(reopened.path, 'utf8')).not.toContain('"old"');
    // On write: one that ages out while the host runs is dropped by the next write...
    reopened.put(record('later', clock.now));
    clock.now += PAIRING_IDLE_EXPIRY_MS - 1000;
    reopened.touch('later', { lastSeen: clock.now });
    expect(readFileSync(reopened.path, 'utf8')).not.toContain('"fresh"');
    expect(reopened.list().map((r) => r.id)).toEqual(['later']);
  });

  /** A code spent and kept, as the host does once the page proved it: the pairing's id and secret. */
  const pairWith = (
    pairing: Pairing,
    origin: string,
    kind: 'link' | 'extension' = 'link',
  ): { id: string; secret: string } => {
    const { code } = pairing.createCode({ origin, kind });
    const redeemed = pairing.redeem(secretId(nodeHmac, code), origin, () => false);
    if (!redeemed.ok) throw new Error(`pairing failed: ${redeemed.reason}`);
    const nonces = { pageNonce: 'page-nonce', hostNonce: 'host-nonce' };
    const id = pairing.keep({ code: redeemed.key, kind, origin, ...nonces });
    return { id, secret: credentialSecret(nodeHmac, code, nonces) };
  };

  it('a pairing that aged out while the host ran is refused as expired, then forgotten', () => {
    const dir = tempDir('toolwire-pairings-');
    const clock = { now: 100 * DAY };
    const store = openPairingFile(dir, { now: () => clock.now });
    const pairing = new Pairing({ store, now: () => clock.now });
    const { id, secret } = pairWith(pairing, A);
    expect(readFileSync(store.path, 'utf8')).toContain(secret);
    // Honest: used on day 29, it still resumes (and the use counts).
    clock.now += PAIRING_IDLE_EXPIRY_MS - DAY;
    expect(pairing.resume(id, A).ok).toBe(true);
    pairing.touch(id, 'read-only');
    clock.now += PAIRING_IDLE_EXPIRY_MS - DAY;
    expect(pairing.resume(id, A).ok).toBe(true);
    // Unused for 30 days: refused with the reason the page shows.
    clock.now += DAY;
    expect(pairing.resume(id, A)).toEqual({
      ok: false,
      reason: 'this pairing expired: unused for 30 days; open a new link',
    });
    // Forgotten: the file no longer holds its secret (it did a moment ago).
    expect(readFileSync(store.path, 'utf8')).not.toContain(secret);
    expect(pairing.resume(id, A)).toMatchObject({
      reason: expect.stringContaining('not known to the host'),
    });
  });

  it('keeps the pairing kind, origin and guard; the id is not the secret', () => {
    const store = new MemoryPairingStore();
    const pairing = new Pairing({ store });
    const link = pairWith(pairing, A);
    pairWith(pairing, 'chrome-extension://abc', 'extension');
    const records = store.list();
    expect(records.map((r) => [r.kind, r.origin])).toEqual([
      ['link', A],
      ['extension', 'chrome-extension://abc'],
    ]);
    expect(records[0]?.secret).toBe(link.secret);
    expect(records[0]?.id).toMatch(/^[\w-]{22}$/);
    expect(records[0]?.id).not.toBe(link.secret);
  });
});

// ---- A real host over real sockets, restarted ----------------------------------------------

describe('a host with the pairings file', () => {
  let host: Host | undefined;
  const pages: FakePage[] = [];

  afterEach(async () => {
    for (const page of pages.splice(0)) page.socket.terminate();
    await host?.close();
    host = undefined;
  });

  const closeOf = (url: string, origin: string) =>
    new Promise<{ code: number; reason: string }>((resolve, reject) => {
      const socket = new WebSocket(url, { origin });
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      socket.on('error', reject);
    });

  it('restarted on the same port with the same file, it knows the tab; revokePairing forgets it', async () => {
    const dir = tempDir('toolwire-pairings-');
    const start = (port = 0) => {
      const store = openPairingFile(dir);
      return createHost({
        port,
        heartbeatIntervalMs: 0,
        pairingStore: store,
        hostId: store.identity?.id as string,
      });
    };
    host = await start();
    const port = host.port;
    const hostId = host.hostId;
    const address = (query: string) => `ws://127.0.0.1:${port}/toolwire?${query}`;
    const page = await FakePage.dialAddress(address(`pair=${host.pairingLink(`${A}/`).code}`), {
      origin: A,
      guard: 'read-only',
      reportGuard: true,
    });
    pages.push(page);
    await host.waitForSession({ filter: (session) => session.info !== null });
    const credential = await page.paired();
    expect(credential).toMatch(/^[\w-]{40,}$/);
    const [view] = host.pairings();
    expect(view).toMatchObject({ origin: A, kind: 'link', sessions: [host.sessions[0]?.id] });
    expect(view).not.toHaveProperty('secret');
    expect(view?.guard).toBe('read-only');
    await host.close();

    host = await start(port);
    expect(host.hostId).toBe(hostId);
    expect(host.pairings()).toMatchObject([{ id: view?.id, sessions: [] }]);
    const again = await FakePage.dialAddress(address(`credential=${credential}`), { origin: A });
    pages.push(again);
    const session = await host.waitForSession();
    expect(session.pairingId).toBe(view?.id);
    // Still the tab's own: another origin is refused.
    expect(await closeOf(handshakeUrl(address(''), { credential }).url, B)).toMatchObject({
      code: 4401,
    });

    expect(host.revokePairing(view?.id as string)).toBe(true);
    expect(await again.closed).toEqual({ code: 4403, reason: 'revoked by the host' });
    expect(host.pairings()).toEqual([]);
    expect(openPairingFile(dir).list()).toEqual([]);
    expect(await closeOf(handshakeUrl(address(''), { credential }).url, A)).toMatchObject({
      code: 4401,
      reason: expect.stringContaining('not known to the host'),
    });
    expect(host.revokePairing(view?.id as string)).toBe(false);
  });
});
