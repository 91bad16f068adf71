// @vitest-environment happy-dom
import { pairingPhrase } from '@toolwire/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConnectEvent, ConnectRequest } from '../../app/connect/messages.js';
import { mountConnect } from '../../app/connect/panel-section.js';

// The panel's Connect for a freshly pasted address: the address's pairing phrase shows, and
// Connect ignores activation for half a second after the address changed.

const ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
const CODE = 'kAb0-_QrStUvWxYz012345';
const ADDRESS = `ws://127.0.0.1:4545/toolwire?pair=${CODE}`;

function mount() {
  const section = document.createElement('section');
  document.body.replaceChildren(section);
  const sent: ConnectRequest[] = [];
  let listener: ((event: ConnectEvent) => void) | undefined;
  const view = mountConnect(section, () => ({
    postMessage: (message: ConnectRequest) => sent.push(message),
    onMessage: { addListener: (l: (event: ConnectEvent) => void) => (listener = l) },
    onDisconnect: { addListener: () => {} },
  }));
  view.watch(4);
  listener?.({ type: 'status', tabId: 4, origin: ORIGIN });
  const $ = <T extends Element>(selector: string) => section.querySelector(selector) as T;
  const paste = (text: string) => {
    const input = $<HTMLInputElement>('#connect-pairing');
    input.value = text;
    input.dispatchEvent(new Event('input', { bubbles: true }));
  };
  const connects = () => sent.filter((message) => message.op === 'connect');
  return { $, paste, connects, emit: (event: ConnectEvent) => listener?.(event) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a freshly pasted address', () => {
  it('shows its pairing phrase; nothing for an address without a code', () => {
    const { $, paste } = mount();
    const phrase = $<HTMLElement>('#connect-phrase');
    expect(phrase.hidden).toBe(true);
    paste(` ${ADDRESS} `);
    expect(phrase.hidden).toBe(false);
    expect(phrase.textContent).toBe(`Check that your terminal shows: ${pairingPhrase(CODE)}`);
    expect($('#connect-pairing').getAttribute('aria-describedby')).toBe('connect-phrase');
    paste('ws://127.0.0.1:4545/toolwire?token=x<b>');
    expect(phrase.hidden).toBe(true);
    expect(phrase.textContent).toBe('');
    paste('ws://127.0.0.1:4545/toolwire?pair=BCDEFG');
    expect(phrase.textContent).toContain('bebi-boda-dedi');
  });

  it('Connect ignores activation for 0.5 s after the address changes, then connects', () => {
    vi.useFakeTimers();
    const { $, paste, connects } = mount();
    const button = $<HTMLButtonElement>('#connect-button');
    let clicks = 0;
    button.addEventListener('click', () => clicks++);
    paste(ADDRESS);
    expect(button.getAttribute('aria-disabled')).toBe('true');
    button.click();
    vi.advanceTimersByTime(499);
    button.click();
    expect(clicks).toBe(2); // the clicks landed
    expect(connects()).toEqual([]);
    // Another paste starts the half second again.
    paste(`${ADDRESS} `);
    vi.advanceTimersByTime(499);
    button.click();
    expect(connects()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(button.hasAttribute('aria-disabled')).toBe(false);
    button.click();
    expect(connects()).toEqual([{ op: 'connect', tabId: 4, guard: 'read-only', pairing: ADDRESS }]);
  });

  it('an empty field (the kept pairing) connects at once', () => {
    vi.useFakeTimers();
    const { $, paste, connects } = mount();
    paste(ADDRESS);
    paste('');
    expect($('#connect-button').hasAttribute('aria-disabled')).toBe(false);
    $<HTMLButtonElement>('#connect-button').click();
    expect(connects()).toEqual([{ op: 'connect', tabId: 4, guard: 'read-only' }]);
  });
});
