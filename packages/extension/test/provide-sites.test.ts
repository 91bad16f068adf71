/**
 * "Provide WebMCP on this site" (app/provide/sites.ts): the stored origins and the browser's
 * registrations, against an in-memory `chrome.scripting` and `chrome.storage.local` that refuse
 * what Chromium refuses (a duplicate id, unregistering an id that is not registered). The
 * browser itself runs in e2e/extension-provide.e2e.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  chosenOrigins,
  isProvided,
  originPattern,
  PROVIDE_KEY,
  ProvideError,
  reconcile,
  registrationFor,
  setProvided,
  siteOrigin,
} from '../app/provide/sites.js';
import { FakeBrowser } from './provide-fake.js';

const A = 'http://localhost:5173';
const B = 'https://shop.example';

describe('origins', () => {
  it('takes the origin of an http(s) URL, nothing else', () => {
    expect(siteOrigin('http://localhost:5173/app/page.html?x#y')).toBe(A);
    expect(siteOrigin('https://shop.example:443/')).toBe(B);
    expect(siteOrigin('http://[::1]:8080/')).toBe('http://[::1]:8080');
    for (const url of [
      undefined,
      '',
      'chrome://extensions',
      'file:///etc/passwd',
      'data:text/html,hi',
      'javascript:alert(1)',
      'not a url',
      'http://*.example/',
      'http://a*b.example/',
    ])
      expect(siteOrigin(url), String(url)).toBeUndefined();
  });

  it('matches exactly one origin: scheme, host and port', () => {
    expect(originPattern(A)).toBe('http://localhost:5173/*');
    expect(originPattern(B)).toBe('https://shop.example/*');
    expect(registrationFor(A)).toEqual({
      id: `provide:${A}`,
      js: ['content/provide.js'],
      matches: ['http://localhost:5173/*'],
      world: 'MAIN',
      runAt: 'document_start',
      allFrames: true,
      persistAcrossSessions: true,
    });
  });

  it('refuses what is not a canonical http(s) origin, with a code', () => {
    expect(originPattern(A)).toBe(`${A}/*`);
    for (const bad of [
      `${A}/`,
      `${A}/*`,
      'http://*.example',
      'ftp://x.example',
      'HTTP://X.EXAMPLE',
    ])
      expect(() => originPattern(bad), bad).toThrow(ProvideError);
    try {
      originPattern('chrome://settings');
    } catch (error) {
      expect((error as ProvideError).code).toBe('provide_origin_invalid');
    }
  });
});

describe('choosing a site', () => {
  it('turning it on stores the origin and registers it; off unregisters and forgets', async () => {
    const browser = new FakeBrowser();
    expect(await isProvided(browser.api, A)).toBe(false);
    await setProvided(browser.api, A, true);
    await setProvided(browser.api, B, true);
    // Twice on is once on.
    await setProvided(browser.api, A, true);
    expect(browser.stored[PROVIDE_KEY]).toEqual([A, B]);
    expect([...browser.scripts.keys()]).toEqual([`provide:${A}`, `provide:${B}`]);
    expect(await isProvided(browser.api, A)).toBe(true);

    await setProvided(browser.api, A, false);
    await setProvided(browser.api, A, false);
    expect(browser.stored[PROVIDE_KEY]).toEqual([B]);
    expect([...browser.scripts.keys()]).toEqual([`provide:${B}`]);
    expect(await isProvided(browser.api, A)).toBe(false);
  });

  it('refuses an origin that is not one, and changes nothing', async () => {
    const browser = new FakeBrowser();
    await setProvided(browser.api, A, true);
    await expect(setProvided(browser.api, 'http://*/*', true)).rejects.toMatchObject({
      code: 'provide_origin_invalid',
    });
    expect(browser.stored[PROVIDE_KEY]).toEqual([A]);
    expect([...browser.scripts.keys()]).toEqual([`provide:${A}`]);
  });

  it('a registration the browser refuses leaves the site not chosen', async () => {
    const browser = new FakeBrowser();
    // Honest first: B registers.
    await setProvided(browser.api, B, true);
    browser.api.scripting.registerContentScripts = (async () => {
      throw new Error('Could not load javascript content/provide.js');
    }) as never;
    await expect(setProvided(browser.api, A, true)).rejects.toThrow(/content\/provide\.js/);
    expect(browser.stored[PROVIDE_KEY]).toEqual([B]);
    expect([...browser.scripts.keys()]).toEqual([`provide:${B}`]);
  });

  it('reads only well-formed origins from storage', async () => {
    const browser = new FakeBrowser();
    browser.stored[PROVIDE_KEY] = [A, A, 'http://*/*', 42, `${B}/path`, 'chrome://x', B];
    expect(await chosenOrigins(browser.api)).toEqual([A, B]);
    browser.stored[PROVIDE_KEY] = 'http://localhost:5173';
    expect(await chosenOrigins(browser.api)).toEqual([]);
  });
});

describe('reconcile, when the service worker starts', () => {
  it('registers the chosen origins the browser lost', async () => {
    const browser = new FakeBrowser();
    await setProvided(browser.api, A, true);
    await setProvided(browser.api, B, true);
    browser.scripts.clear();
    expect(await reconcile(browser.api)).toEqual([A, B]);
    expect([...browser.scripts.values()]).toEqual([registrationFor(A), registrationFor(B)]);
  });

  it('removes registrations for origins nobody chose, and leaves others alone', async () => {
    const browser = new FakeBrowser();
    await setProvided(browser.api, A, true);
    // A registration storage does not name (storage cleared, or written by an older version),
    // and another extension part's script with an id of its own.
    browser.scripts.set(`provide:${B}`, registrationFor(B));
    browser.scripts.set('other', { id: 'other', js: ['x.js'], matches: ['https://*/*'] });
    expect(await reconcile(browser.api)).toEqual([A]);
    expect([...browser.scripts.keys()].sort()).toEqual(['other', `provide:${A}`]);
  });

  it('replaces a registration that no longer says what this version registers', async () => {
    const browser = new FakeBrowser();
    await setProvided(browser.api, A, true);
    browser.scripts.set(`provide:${A}`, {
      ...registrationFor(A),
      matches: ['http://*/*'],
      allFrames: false,
    });
    await reconcile(browser.api);
    expect(browser.scripts.get(`provide:${A}`)).toEqual(registrationFor(A));
  });

  it('with nothing chosen, nothing is registered, whatever was there', async () => {
    const browser = new FakeBrowser();
    // Honest first: a chosen site is registered.
    await setProvided(browser.api, A, true);
    expect(browser.scripts.size).toBe(1);
    browser.stored = {};
    expect(await reconcile(browser.api)).toEqual([]);
    expect(browser.scripts.size).toBe(0);
    // And again: already in step, nothing to do (no call throws).
    expect(await reconcile(browser.api)).toEqual([]);
  });
});
