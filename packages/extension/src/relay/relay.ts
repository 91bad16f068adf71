/**
 * The isolated-world relay (an extension's content script, default world, `document_start`).
 * It accepts exactly one handoff of the MAIN world's private port: a window message from this
 * window (`event.source === window`) and this origin, carrying one port and a nonce. It hides
 * handoffs from page listeners (capture phase, `stopImmediatePropagation`) and refuses every
 * later one. After that it forwards the background's requests over the private port, each with
 * the nonce and a fresh id, and accepts only answers to ids it issued, once each, rebuilt by
 * the sanitizer. Progress reports pass only for a pending call that asked for them, checked
 * (a growing number, a clipped message) and before its answer. It never reads any other window
 * message.
 */
import type { MainRequest, RelayReply } from '../channel/messages.js';
import { isHandoff, isRelayRequest, RELAY_PORT_NAME, randomHex } from '../channel/messages.js';
import type { RuntimePortLike } from '../channel/runtime-port.js';
import { connectRuntime, onReconnectRequest } from '../channel/runtime-port.js';
import { sanitizeOutcome, sanitizeProgress, sanitizeTools } from '../channel/sanitize.js';

export interface RelayOptions {
  /** The window to listen on (tests pass happy-dom's). */
  win?: Window;
  /** Opens the port to the background (default `chrome.runtime.connect`). */
  connect?: () => RuntimePortLike;
}

/** What the relay has seen, for tests and diagnostics. */
export interface RelayState {
  /** The private channel is up. */
  readonly accepted: boolean;
  /**
   * Handoffs refused (a second one, wrong source or origin, no port), stray answers, and
   * progress reports dropped (not asked for, not moving forward, not a number).
   */
  readonly refused: number;
}

interface Pending {
  backgroundId: number;
  op: 'list' | 'call';
  /** The call asked for progress: the last report passed on (-Infinity before the first). */
  progress?: number;
}

export function startRelay(options: RelayOptions = {}): RelayState {
  const win = options.win ?? window;
  const connect = options.connect ?? (() => connectRuntime(RELAY_PORT_NAME));
  const state = { accepted: false, refused: 0 };
  let nonce = '';
  let main: MessagePort | undefined;
  let background: RuntimePortLike | undefined;
  const pending = new Map<string, Pending>();
  const idPrefix = randomHex(win.crypto.getRandomValues.bind(win.crypto));
  let counter = 0;

  const toMain = (request: MainRequest) => main?.postMessage(request);
  const toBackground = (reply: RelayReply) => background?.postMessage(reply);

  const onMain = (event: MessageEvent) => {
    const data = event.data as Record<string, unknown> | null;
    if (typeof data !== 'object' || data === null || data.nonce !== nonce) {
      state.refused++;
      return;
    }
    if (data.event === 'changed') {
      toBackground({ event: 'changed' });
      return;
    }
    const call = typeof data.id === 'string' ? pending.get(data.id) : undefined;
    if (!call) {
      state.refused++;
      return;
    }
    if (!('outcome' in data) && 'progress' in data) {
      // A report: only for a call that asked, and only one that moves forward.
      const report =
        call.progress === undefined ? undefined : sanitizeProgress(data.progress, call.progress);
      if (!report) {
        state.refused++;
        return;
      }
      call.progress = report.progress;
      toBackground({ id: call.backgroundId, progress: report });
      return;
    }
    pending.delete(data.id as string);
    const outcome = sanitizeOutcome(data.outcome);
    toBackground({
      id: call.backgroundId,
      outcome:
        call.op === 'list' && outcome.ok
          ? { ok: true, result: sanitizeTools(outcome.result) }
          : outcome,
    });
  };

  const onBackground = (message: unknown) => {
    if (!isRelayRequest(message)) return;
    if (message.op === 'abort') {
      for (const [id, call] of pending)
        if (call.backgroundId === message.id) toMain({ nonce, id, op: 'abort' });
      return;
    }
    counter += 1;
    const id = `${idPrefix}-${counter}`;
    const progress = message.op === 'call' && message.progress === true;
    pending.set(id, {
      backgroundId: message.id,
      op: message.op,
      ...(progress ? { progress: -Infinity } : {}),
    });
    toMain(
      message.op === 'list'
        ? { nonce, id, op: 'list' }
        : {
            nonce,
            id,
            op: 'call',
            name: message.name,
            args: message.args,
            ...(progress ? { progress: true as const } : {}),
          },
    );
  };

  const onWindowMessage = (event: MessageEvent) => {
    if (!isHandoff(event.data)) return;
    // Ours or a forgery: either way no page listener sees it.
    event.stopImmediatePropagation();
    const port = event.ports[0];
    if (
      state.accepted ||
      event.source !== win ||
      event.origin !== win.location.origin ||
      event.ports.length !== 1 ||
      !port
    ) {
      state.refused++;
      return;
    }
    state.accepted = true;
    nonce = event.data.nonce;
    main = port;
    main.onmessage = onMain;
    openBackground();
  };

  const openBackground = () => {
    const link = connect();
    background = link;
    link.onMessage.addListener(onBackground);
    link.onDisconnect.addListener(() => {
      if (background !== link) return;
      for (const id of pending.keys()) toMain({ nonce, id, op: 'abort' });
      pending.clear();
      background = undefined;
    });
  };

  win.addEventListener('message', onWindowMessage, { capture: true });
  // A service worker that was stopped and started again asks its tabs to connect once more.
  onReconnectRequest(() => {
    if (state.accepted && !background) openBackground();
  });
  return state;
}
