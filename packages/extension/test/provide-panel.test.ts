// @vitest-environment happy-dom
/**
 * The panel's "Provide WebMCP on this site" section (app/provide/panel-section.ts): shown for
 * http(s) tabs only, with the origin, off unless chosen; a change registers and reloads the tab;
 * where the browser has its own WebMCP it says providing is not needed.
 */
import { describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import type { ProvideTabs } from '../app/provide/panel-section.js';
import { mountProvide } from '../app/provide/panel-section.js';
import { FakeBrowser } from './provide-fake.js';

const A = 'http://localhost:5173';

function mount(urls: Record<number, string | undefined>, native: Set<number> = new Set()) {
  const browser = new FakeBrowser();
  const reloaded: number[] = [];
  let updated: (tabId: number) => void = () => {};
  const tabs: ProvideTabs = {
    urlOf: async (tabId) => urls[tabId],
    hasNativeWebMcp: async (tabId) => native.has(tabId),
    reload: async (tabId) => {
      reloaded.push(tabId);
      // As the browser: the reload is asked at once, the tab's load completes in a later task.
      setTimeout(() => updated(tabId));
    },
    onUpdated: (listener) => {
      updated = listener;
    },
  };
  const section = document.createElement('section');
  document.body.replaceChildren(section);
  const view = mountProvide(section, browser.api, tabs);
  const toggle = section.querySelector('#provide-toggle') as HTMLInputElement;
  const status = () => section.querySelector('.provide-status')?.textContent ?? '';
  const origin = () => section.querySelector('.provide-origin')?.textContent ?? '';
  return { browser, reloaded, section, view, toggle, status, origin };
}

describe('Provide WebMCP on this site', () => {
  it('is shown, off, for an http(s) tab nobody chose, and turning it on registers and reloads', async () => {
    const panel = mount({ 1: `${A}/flights.html` });
    panel.view.watch(1);
    await until(() => !panel.section.hidden, 'the section shows');
    expect(panel.origin()).toBe(A);
    expect(panel.toggle.checked).toBe(false);
    expect(panel.toggle.disabled).toBe(false);
    expect(panel.status()).toMatch(/^Off:/);
    expect(panel.section.querySelector('label')?.textContent).toBe('Provide WebMCP on this site');

    panel.toggle.checked = true;
    panel.toggle.dispatchEvent(new Event('change'));
    await until(() => panel.status().endsWith('The tab was reloaded to apply it.'), 'on');
    expect(panel.status()).toMatch(/^On:/);
    expect(panel.toggle.checked).toBe(true);
    expect(panel.reloaded).toEqual([1]);
    expect([...panel.browser.scripts.keys()]).toEqual([`provide:${A}`]);

    panel.toggle.checked = false;
    panel.toggle.dispatchEvent(new Event('change'));
    await until(() => panel.status().startsWith('Off:'), 'off');
    expect(panel.reloaded).toEqual([1, 1]);
    expect(panel.browser.scripts.size).toBe(0);
    expect(panel.browser.stored['provide.origins']).toEqual([]);
  });

  it('is hidden for a tab that is not an http(s) page', async () => {
    const panel = mount({ 1: `${A}/`, 2: 'chrome://extensions/', 3: undefined });
    // Honest first: the http tab shows it.
    panel.view.watch(1);
    await until(() => !panel.section.hidden, 'the section shows');
    for (const tabId of [2, 3]) {
      panel.view.watch(tabId);
      // Settled: the section stays hidden, and its origin is not this tab's.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await until(() => panel.section.hidden, 'hidden');
    }
    expect(panel.browser.scripts.size).toBe(0);
  });

  it('says it is not needed where the browser has its own WebMCP', async () => {
    const panel = mount({ 1: `${A}/`, 2: `${A}/native` }, new Set([2]));
    panel.view.watch(1);
    await until(() => panel.status().startsWith('Off:'), 'a tab without WebMCP');
    expect(panel.toggle.disabled).toBe(false);
    panel.view.watch(2);
    await until(() => panel.status().startsWith('Not needed:'), 'the native tab');
    expect(panel.toggle.disabled).toBe(true);
    expect(panel.toggle.checked).toBe(false);
  });
});
