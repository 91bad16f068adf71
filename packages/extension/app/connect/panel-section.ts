/**
 * The side panel's "Connect this tab to toolwire" section (`<section id="connect">`): the
 * pairing address `toolwire pair --extension ID` printed, the guard (read-only by default),
 * Connect / Disconnect, and the tab's status. It asks the background over the
 * `toolwire-connect` port; every string from a page or a host is set as text, never markup.
 *
 * A pasted address shows its pairing phrase (`pairingPhrase`, the words `toolwire pair
 * --extension` printed beside it), and Connect ignores activation for half a second after the
 * address changes, so a click meant for something else as the address lands connects nothing.
 */
import { pairingPhrase } from '@toolwire/protocol';
import type { ConnectEvent, ConnectRequest, ConnectStatus } from './messages.js';
import { readPairingAddress } from './pairing-address.js';
import type { TabGuard } from './tab-link.js';
import { TAB_GUARDS } from './tab-link.js';

/** The part of `chrome.runtime.Port` the section uses. */
export interface ConnectPort {
  postMessage(message: ConnectRequest): void;
  onMessage: { addListener(listener: (message: ConnectEvent) => void): void };
  onDisconnect: { addListener(listener: () => void): void };
}

export interface ConnectSection {
  /** Shows (and acts on) this tab. */
  watch(tabId: number): void;
}

/** How long Connect ignores activation after the pasted address changes. */
const ARMING_MS = 500;

const GUARD_TEXT: Record<TabGuard, string> = {
  'read-only': 'read-only: tools that only read',
  'read-write': 'read-write: also tools that change the page',
  'full-access': 'full-access: also critical tools',
};

function element<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  props: Partial<Record<'className' | 'id' | 'textContent' | 'type', string>> = {},
): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  Object.assign(node, props);
  return node;
}

function statusText(event: ConnectStatus): string {
  const state = event.state;
  if (!state) return 'This tab is not connected to toolwire.';
  if (state.status === 'connected') {
    // Who serves the tab: its own session (the usual case), or this extension's worker.
    const by =
      state.path === 'direct'
        ? ', served from the tab'
        : state.path === 'worker'
          ? ', served by the extension'
          : '';
    return `Connected to ${state.address} (${state.guard}${by}).`;
  }
  if (state.status === 'connecting') {
    return state.error
      ? `Reconnecting to ${state.address}: ${state.error.message}`
      : `Connecting to ${state.address}…`;
  }
  return `Not connected: ${state.error?.message ?? 'ended'} (${state.error?.code ?? 'ended'})`;
}

/**
 * Builds the section in `section`; `openPort` connects to the background (again after the
 * service worker was stopped, which closes the port).
 */
export function mountConnect(section: HTMLElement, openPort: () => ConnectPort): ConnectSection {
  const doc = section.ownerDocument;
  const status = element(doc, 'p', { className: 'connect-status' });
  status.setAttribute('role', 'status');
  const pairing = element(doc, 'input', { id: 'connect-pairing', type: 'text' });
  pairing.placeholder = 'ws://127.0.0.1:45124/toolwire?pair=…';
  pairing.autocomplete = 'off';
  pairing.spellcheck = false;
  const pairingLabel = element(doc, 'label', { textContent: 'Pairing address' });
  pairingLabel.htmlFor = pairing.id;
  const phrase = element(doc, 'p', { className: 'connect-phrase', id: 'connect-phrase' });
  phrase.hidden = true;
  pairing.setAttribute('aria-describedby', phrase.id);
  const command = element(doc, 'code', { className: 'connect-command' });
  const hint = element(doc, 'p', { className: 'connect-hint' });
  const guard = element(doc, 'select', { id: 'connect-guard' });
  for (const name of TAB_GUARDS) {
    const option = element(doc, 'option', { textContent: GUARD_TEXT[name] });
    option.value = name;
    guard.append(option);
  }
  guard.value = 'read-only';
  const guardLabel = element(doc, 'label', { textContent: 'What the host may call' });
  guardLabel.htmlFor = guard.id;
  const connect = element(doc, 'button', { type: 'button', textContent: 'Connect this tab' });
  connect.id = 'connect-button';
  const disconnect = element(doc, 'button', { type: 'button', textContent: 'Disconnect' });
  disconnect.id = 'disconnect-button';
  disconnect.disabled = true;
  section.replaceChildren(
    element(doc, 'h2', { textContent: 'Connect this tab to toolwire' }),
    status,
    pairingLabel,
    pairing,
    phrase,
    hint,
    guardLabel,
    guard,
    element(doc, 'div', { className: 'connect-buttons' }),
  );
  section.lastElementChild?.append(connect, disconnect);

  let tabId = -1;
  const show = (event: ConnectStatus) => {
    status.textContent = statusText(event);
    const live = event.state !== undefined && event.state.status !== 'ended';
    disconnect.disabled = !live;
    connect.textContent = live ? 'Connect again' : 'Connect this tab';
    command.textContent = `toolwire pair --extension ${event.origin}`;
    hint.replaceChildren(
      event.pairedWith
        ? `Paired with ${event.pairedWith}: leave the address empty to use it, or paste one from `
        : 'In a terminal, run ',
      command,
      event.pairedWith ? '.' : ', paste the address it prints here, then Connect.',
    );
    if (event.state?.status === 'connected' && pairing.value) {
      pairing.value = '';
      pasted();
    }
  };
  const onEvent = (event: ConnectEvent) => {
    if (event.tabId !== tabId) return;
    if (event.type === 'status') show(event);
    else status.textContent = `${event.message} (${event.code})`;
  };
  let port: ConnectPort;
  const open = () => {
    port = openPort();
    port.onMessage.addListener(onEvent);
    port.onDisconnect.addListener(() =>
      setTimeout(() => {
        open();
        if (tabId >= 0) port.postMessage({ op: 'status', tabId });
      }, 100),
    );
  };
  open();
  // A new address: its phrase shows, and Connect waits half a second before it answers.
  let armed = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pasted = () => {
    clearTimeout(timer);
    const text = pairing.value.trim();
    const read = text ? readPairingAddress(text) : undefined;
    if (read?.ok) {
      const words = element(doc, 'code', { textContent: pairingPhrase(read.code) });
      phrase.replaceChildren('Check that your terminal shows: ', words);
      phrase.hidden = false;
    } else {
      phrase.replaceChildren();
      phrase.hidden = true;
    }
    if (!text) {
      armed = true;
      connect.removeAttribute('aria-disabled');
      return;
    }
    armed = false;
    connect.setAttribute('aria-disabled', 'true');
    timer = setTimeout(() => {
      armed = true;
      connect.removeAttribute('aria-disabled');
    }, ARMING_MS);
  };
  pairing.addEventListener('input', pasted);
  connect.addEventListener('click', () => {
    if (tabId < 0 || !armed) return;
    const text = pairing.value.trim();
    status.textContent = 'Connecting…';
    port.postMessage({
      op: 'connect',
      tabId,
      guard: guard.value as TabGuard,
      ...(text ? { pairing: text } : {}),
    });
  });
  disconnect.addEventListener('click', () => {
    if (tabId >= 0) port.postMessage({ op: 'disconnect', tabId });
  });
  return {
    watch(id) {
      if (id === tabId) return;
      tabId = id;
      guard.value = 'read-only';
      status.textContent = '';
      port.postMessage({ op: 'status', tabId: id });
    },
  };
}
