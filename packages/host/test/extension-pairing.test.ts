import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { extensionOrigin } from '../src/internal.js';
import { cli, hostInProcess, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';

// Issue 17 part 2: the toolwire browser extension pairs with the same model as pages. Its
// sockets carry `Origin: chrome-extension://<id>`; `toolwire pair --extension ID` makes a
// single-use code bound to that origin, spent for one credential the extension reuses for
// each tab it connects (one session a tab). Every refusal follows the honest path.

const ID = 'abcdefghijklmnopabcdefghijklmnop';
const EXTENSION = `chrome-extension://${ID}`;
const PAGE = 'http://shop.test';

const pages: FakePage[] = [];
const stops: (() => Promise<number>)[] = [];
afterEach(async () => {
  for (const page of pages.splice(0)) page.socket.terminate();
  for (const stop of stops.splice(0)) await stop();
});

async function setup() {
  const env = { TOOLWIRE_STATE: join(tempDir('toolwire-ext-pair-'), 'host.json') };
  const host = await hostInProcess(env, []);
  stops.push(host.stop);
  return { env, host };
}

async function connectAs(url: string, origin: string) {
  const page = await FakePage.dialAddress(url, { origin, tools: [tool('tab.read')] });
  pages.push(page);
  return page;
}

const welcomeOf = (page: FakePage): Promise<any> =>
  until(() => page.received.find((message) => message.type === 'session.welcome'), 'a welcome');

function withCredential(address: string, credential: string): string {
  const url = new URL(address);
  url.searchParams.delete('pair');
  url.searchParams.set('credential', credential);
  return url.toString();
}

describe('extensionOrigin', () => {
  it('reads an id or an origin; refuses anything else', () => {
    expect(extensionOrigin(ID)).toBe(EXTENSION);
    expect(extensionOrigin(`${EXTENSION}/`)).toBe(EXTENSION);
    expect(extensionOrigin(` ${EXTENSION.toUpperCase()} `)).toBe(EXTENSION);
    for (const bad of ['', 'abc', `${ID}q`, 'http://shop.test', `moz-extension://${ID}`]) {
      expect(() => extensionOrigin(bad)).toThrow(/not an extension id/);
    }
  });
});

describe('toolwire pair --extension', () => {
  it('prints a pairing address the extension trades once, then reuses for every tab', async () => {
    const { env } = await setup();
    const paired = await cli(['pair', '--extension', ID], env);
    expect(paired.code, paired.err).toBe(0);
    const address = paired.out.trim();
    expect(address).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/toolwire\?pair=[\w-]{22}$/);
    expect(paired.err).toContain("toolwire extension's side panel");
    expect(paired.err).toContain(EXTENSION);

    const first = await connectAs(address, EXTENSION);
    const credential = await first.paired();
    expect(credential).toEqual(expect.any(String));
    // A second tab with the same credential: its own session, the first stays open.
    const second = await connectAs(withCredential(address, credential), EXTENSION);
    await welcomeOf(second);
    const sessions = JSON.parse((await cli(['sessions', '--json'], env)).out).sessions;
    expect(sessions).toHaveLength(2);
    expect(first.socket.readyState).toBe(first.socket.OPEN);

    const json = JSON.parse((await cli(['pair', '--extension', EXTENSION, '--json'], env)).out);
    expect(json).toEqual({
      address: expect.stringContaining('?pair='),
      origin: EXTENSION,
      expiresAt: expect.any(String),
      phrase: expect.stringMatching(/^[a-z]{4}-[a-z]{4}-[a-z]{4}$/),
    });
  });

  it("a page cannot use the extension's code, nor its credential", async () => {
    const { env } = await setup();
    const address = (await cli(['pair', '--extension', ID], env)).out.trim();
    const page = await connectAs(address, PAGE);
    expect(await page.closed).toMatchObject({
      code: 4401,
      reason: expect.stringContaining(`not for pages of ${PAGE}`),
    });
    // Unspent: the extension still pairs with it.
    const extension = await connectAs(address, EXTENSION);
    const credential = await extension.paired();
    const thief = await connectAs(withCredential(address, credential), PAGE);
    expect(await thief.closed).toMatchObject({ code: 4401 });
    // Another extension cannot either.
    const other = await connectAs(
      withCredential(address, credential),
      'chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba',
    );
    expect(await other.closed).toMatchObject({ code: 4401 });
  });

  it("the extension cannot use a page's code", async () => {
    const { env } = await setup();
    // Honest: the page's own origin pairs with its link.
    const link = (await cli(['pair', '--page', `${PAGE}/`], env)).out.trim();
    const linkAddress = new URLSearchParams(new URL(link).hash.slice(1)).get('toolwire') as string;
    expect(await (await connectAs(linkAddress, PAGE)).paired()).toBeTruthy();
    const other = (await cli(['pair', '--page', `${PAGE}/`], env)).out.trim();
    const otherAddress = new URLSearchParams(new URL(other).hash.slice(1)).get(
      'toolwire',
    ) as string;
    const extension = await connectAs(otherAddress, EXTENSION);
    expect(await extension.closed).toMatchObject({
      code: 4401,
      reason: expect.stringContaining(`not for pages of ${EXTENSION}`),
    });
  });

  it('refuses a malformed id, and --page with --extension, as usage errors', async () => {
    const { env } = await setup();
    const bad = await cli(['pair', '--extension', 'not-an-id'], env);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('not an extension id');
    const both = await cli(['pair', '--extension', ID, '--page', `${PAGE}/`], env);
    expect(both.code).toBe(2);
  });
});
