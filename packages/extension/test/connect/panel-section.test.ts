// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConnectEvent, ConnectRequest } from '../../app/connect/messages.js';
import { mountConnect } from '../../app/connect/panel-section.js';

const ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';

function fakePort() {
  const sent: ConnectRequest[] = [];
  let listener: ((event: ConnectEvent) => void) | undefined;
  let disconnected: (() => void) | undefined;
  let opened = 0;
  return {
    sent,
    emit: (event: ConnectEvent) => listener?.(event),
    /** The service worker stopped: the port closes. */
    drop: () => disconnected?.(),
    opened: () => opened,
    open: () => {
      opened++;
      return {
        postMessage: (message: ConnectRequest) => sent.push(message),
        onMessage: { addListener: (l: (event: ConnectEvent) => void) => (listener = l) },
        onDisconnect: { addListener: (l: () => void) => (disconnected = l) },
      };
    },
  };
}

function mount() {
  const section = document.createElement('section');
  document.body.replaceChildren(section);
  const fake = fakePort();
  const view = mountConnect(section, fake.open);
  const $ = <T extends Element>(selector: string) => section.querySelector(selector) as T;
  return { section, fake, view, $ };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the connect section', () => {
  it('asks for the tab status, shows the CLI command, connects with the picked guard', () => {
    const { fake, view, $ } = mount();
    view.watch(4);
    expect(fake.sent).toEqual([{ op: 'status', tabId: 4 }]);
    fake.emit({ type: 'status', tabId: 4, origin: ORIGIN });
    expect($('.connect-command').textContent).toBe(`toolwire pair --extension ${ORIGIN}`);
    expect($('.connect-status').textContent).toBe('This tab is not connected to toolwire.');
    expect($<HTMLSelectElement>('#connect-guard').value).toBe('read-only');
    expect($<HTMLButtonElement>('#disconnect-button').disabled).toBe(true);

    $<HTMLInputElement>('#connect-pairing').value = ' ws://127.0.0.1:1/toolwire?pair=x ';
    $<HTMLSelectElement>('#connect-guard').value = 'read-write';
    $<HTMLButtonElement>('#connect-button').click();
    expect(fake.sent.at(-1)).toEqual({
      op: 'connect',
      tabId: 4,
      guard: 'read-write',
      pairing: 'ws://127.0.0.1:1/toolwire?pair=x',
    });
  });

  it('shows states and errors as text; page strings never become markup', () => {
    const { section, fake, view, $ } = mount();
    view.watch(4);
    const tab = {
      tabId: 4,
      title: '<img src=x onerror=alert(1)>',
      url: 'http://a.test/',
      origin: 'http://a.test',
    };
    fake.emit({
      type: 'status',
      tabId: 4,
      origin: ORIGIN,
      pairedWith: 'ws://127.0.0.1:1/toolwire',
      state: {
        status: 'ended',
        tab,
        guard: 'read-only',
        address: 'ws://127.0.0.1:1/toolwire',
        error: { code: 'pairing_refused', message: '<b>no</b>' },
      },
    });
    expect($('.connect-status').textContent).toBe('Not connected: <b>no</b> (pairing_refused)');
    expect(section.querySelector('img, b')).toBeNull();
    expect($('.connect-hint').textContent).toContain('Paired with ws://127.0.0.1:1/toolwire');

    fake.emit({
      type: 'status',
      tabId: 4,
      origin: ORIGIN,
      state: {
        status: 'connected',
        tab,
        guard: 'full-access',
        address: 'ws://127.0.0.1:1/toolwire',
      },
    });
    expect($('.connect-status').textContent).toBe(
      'Connected to ws://127.0.0.1:1/toolwire (full-access).',
    );
    // The status says who serves the tab: its own session, or the extension's worker.
    for (const [path, said] of [
      ['direct', 'served from the tab'],
      ['worker', 'served by the extension'],
    ] as const) {
      fake.emit({
        type: 'status',
        tabId: 4,
        origin: ORIGIN,
        state: {
          status: 'connected',
          tab,
          guard: 'full-access',
          address: 'ws://127.0.0.1:1/toolwire',
          path,
        },
      });
      expect($('.connect-status').textContent).toBe(
        `Connected to ws://127.0.0.1:1/toolwire (full-access, ${said}).`,
      );
    }
    expect($<HTMLButtonElement>('#disconnect-button').disabled).toBe(false);
    $<HTMLButtonElement>('#disconnect-button').click();
    expect(fake.sent.at(-1)).toEqual({ op: 'disconnect', tabId: 4 });

    fake.emit({ type: 'error', tabId: 4, code: 'no_relay', message: 'Reload the tab.' });
    expect($('.connect-status').textContent).toBe('Reload the tab. (no_relay)');
    // Another tab's news is not shown here.
    fake.emit({ type: 'error', tabId: 5, code: 'x', message: 'other tab' });
    expect($('.connect-status').textContent).toBe('Reload the tab. (no_relay)');
  });

  it('connects again when the service worker stopped, and asks for the status again', () => {
    // A short pause before connecting again: time is the subject, so fake timers.
    vi.useFakeTimers();
    const { fake, view } = mount();
    view.watch(9);
    fake.drop();
    vi.advanceTimersByTime(100);
    expect(fake.opened()).toBe(2);
    expect(fake.sent.at(-1)).toEqual({ op: 'status', tabId: 9 });
  });
});
