import { join } from 'node:path';
import { delegateSecret, secretId } from '@toolwire/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { nodeHmac, Pairing } from '../src/server/pairing.js';
import { cli, hostInProcess, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';

// A tab the extension connects from inside it: the extension's content script dials from the
// page with `?delegate-of=<id of the extension's credential>` and proves a key derived from that
// credential and the page's origin. The host derives it again from the kept parent and the
// socket's Origin: nothing stored, that origin only, gone with the extension's pairing.

const ID = 'abcdefghijklmnopabcdefghijklmnop';
const EXTENSION = `chrome-extension://${ID}`;
const PAGE = 'http://shop.test';
const OTHER = 'http://other.test';

const pages: FakePage[] = [];
const stops: (() => Promise<number>)[] = [];
afterEach(async () => {
  for (const page of pages.splice(0)) page.socket.terminate();
  for (const stop of stops.splice(0)) await stop();
});

const welcomeOf = (page: FakePage): Promise<any> =>
  until(() => page.received.find((message) => message.type === 'session.welcome'), 'a welcome');

describe('delegateSecret', () => {
  it('is the credential keyed MAC of the origin, base64url, one per origin', () => {
    const credential = 'c'.repeat(22);
    const mine = delegateSecret(nodeHmac, credential, PAGE);
    expect(mine).toMatch(/^[\w-]{43}$/);
    expect(mine).toBe(
      Buffer.from(nodeHmac(credential, `toolwire delegate\n${PAGE}`)).toString('base64url'),
    );
    expect(delegateSecret(nodeHmac, credential, OTHER)).not.toBe(mine);
    expect(delegateSecret(nodeHmac, 'd'.repeat(22), PAGE)).not.toBe(mine);
  });
});

describe('Pairing.delegate', () => {
  function kept(pairing: Pairing, kind: 'extension' | 'link', origin: string) {
    const code = pairing.createCode({ origin, kind });
    const id = pairing.keep({
      code: code.code,
      kind,
      origin,
      pageNonce: 'p'.repeat(22),
      hostNonce: 'h'.repeat(22),
    });
    return { id, secret: pairing.store.get(id)?.secret as string };
  }

  it("derives the key from an extension pairing and the page's origin; refuses the rest", () => {
    let now = 1_000;
    const pairing = new Pairing({ now: () => now });
    const parent = kept(pairing, 'extension', EXTENSION);
    // Honest.
    expect(pairing.delegate(parent.id, PAGE)).toEqual({
      ok: true,
      key: delegateSecret(nodeHmac, parent.secret, PAGE),
      kind: 'extension',
      pairingId: parent.id,
    });
    // Not a web page's origin: the extension's own, none, another scheme, a URL with a path.
    for (const origin of [EXTENSION, null, 'file://', 'null', `${PAGE}/path`, 'ftp://shop.test']) {
      expect(pairing.delegate(parent.id, origin)).toMatchObject({ ok: false });
    }
    // A page's pairing is no parent.
    const link = kept(pairing, 'link', PAGE);
    expect(pairing.resume(link.id, PAGE)).toMatchObject({ ok: true });
    expect(pairing.delegate(link.id, PAGE)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('extension pairing is not known'),
    });
    // Unknown id.
    expect(pairing.delegate('x'.repeat(22), PAGE)).toMatchObject({ ok: false });
    // Revoked.
    pairing.revoke(parent.id);
    expect(pairing.delegate(parent.id, PAGE)).toMatchObject({ ok: false });
    // Expired.
    const stale = kept(pairing, 'extension', EXTENSION);
    expect(pairing.delegate(stale.id, PAGE)).toMatchObject({ ok: true });
    now += 31 * 24 * 60 * 60_000;
    expect(pairing.delegate(stale.id, PAGE)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('expired'),
    });
  });
});

describe('a delegate socket on a real host', () => {
  async function setup() {
    const env = { TOOLWIRE_STATE: join(tempDir('toolwire-ext-delegate-'), 'host.json') };
    const host = await hostInProcess(env, []);
    stops.push(host.stop);
    const address = (await cli(['pair', '--extension', ID], env)).out.trim();
    const extension = await FakePage.dialAddress(address, {
      origin: EXTENSION,
      tools: [tool('ext.read')],
    });
    pages.push(extension);
    const credential = await extension.paired();
    const base = new URL(address);
    base.search = '';
    return { env, base: base.toString(), credential, id: secretId(nodeHmac, credential) };
  }

  async function dialDelegate(
    base: string,
    origin: string,
    delegate: { of: string; secret: string },
  ) {
    const page = await FakePage.dial(base, { delegate }, { origin, tools: [tool('tab.read')] });
    pages.push(page);
    return page;
  }

  it('serves the page as a session of its origin, marked as from the extension', async () => {
    const { env, base, credential, id } = await setup();
    const page = await dialDelegate(base, PAGE, {
      of: id,
      secret: delegateSecret(nodeHmac, credential, PAGE),
    });
    await welcomeOf(page);
    expect(page.hostProven).toBe(true);
    await until(async () => {
      const listed = JSON.parse((await cli(['sessions', '--json'], env)).out).sessions;
      return listed.find((one: any) => one.origin === PAGE && one.tools === 1);
    }, 'the delegate session with its tool');
    const sessions = JSON.parse((await cli(['sessions', '--json'], env)).out).sessions;
    expect(sessions.find((one: any) => one.origin === PAGE)).toMatchObject({
      auth: 'extension',
      paired: true,
    });
    expect(sessions.find((one: any) => one.origin === EXTENSION)).toMatchObject({
      auth: 'pairing',
    });
    const table = (await cli(['sessions'], env)).out;
    expect(table).toContain(`${PAGE} (extension)`);
  });

  it('refuses a delegate from another origin, of a page pairing, or after a revoke (4401)', async () => {
    const { env, base, credential, id } = await setup();
    const secret = delegateSecret(nodeHmac, credential, PAGE);
    // Honest first.
    const honest = await dialDelegate(base, PAGE, { of: id, secret });
    await welcomeOf(honest);
    // The same delegate from another origin: the host derives another key, and says no before.
    const moved = await dialDelegate(base, OTHER, { of: id, secret });
    // The host derives another key for that origin: neither side's proof checks out.
    expect(await moved.closed).toMatchObject({
      code: 4401,
      reason: expect.stringContaining('did not prove'),
    });
    expect(moved.hostProven).toBe(false);
    // The extension's own origin cannot use a delegate.
    const own = await dialDelegate(base, EXTENSION, { of: id, secret });
    expect(await own.closed).toMatchObject({ code: 4401 });
    // A page's (link) pairing is no parent.
    const link = (await cli(['pair', '--page', `${PAGE}/`], env)).out.trim();
    const linkAddress = new URLSearchParams(new URL(link).hash.slice(1)).get('toolwire') as string;
    const linked = await FakePage.dialAddress(linkAddress, { origin: PAGE, tools: [tool('x')] });
    pages.push(linked);
    const linkCredential = await linked.paired();
    await welcomeOf(linked);
    const fromLink = await dialDelegate(base, OTHER, {
      of: secretId(nodeHmac, linkCredential),
      secret: delegateSecret(nodeHmac, linkCredential, OTHER),
    });
    expect(await fromLink.closed).toMatchObject({ code: 4401 });
    // Revoking the extension's pairing ends the delegate's session and refuses new ones.
    const revoked = await cli(['revoke', '--pairing', id], env);
    expect(revoked.code, revoked.err).toBe(0);
    expect(await honest.closed).toMatchObject({ code: 4403 });
    const after = await dialDelegate(base, PAGE, { of: id, secret });
    expect(await after.closed).toMatchObject({
      code: 4401,
      reason: expect.stringContaining('extension pairing is not known'),
    });
  });
});
