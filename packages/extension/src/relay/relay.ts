/**
 * The isolated-world relay (an extension's content script, default world, `document_start`).
 * It accepts exactly one handoff of the MAIN world's private port: a window message from this
 * window (`event.source === window`) and this origin, carrying one port and a nonce. It hides
 * handoffs from page listeners (capture phase, `stopImmediatePropagation`) and refuses every
 * later one. After that it forwards the background's requests over the private port, each with
 * the nonce and a fresh id, and accepts only answers to ids it issued, once each, rebuilt by
 * the sanitizer; a call's result comes as JSON text, capped in size, and is parsed (checked)
 * once, by the background on the direct port, here for the runtime port. Progress reports pass only for a pending call that asked for them, checked
 * (a growing number, a clipped message) and before its answer. It never reads any other window
 * message.
 *
 * The background may offer a direct port (`DirectOffer`): the relay then embeds the extension's
 * link page (this extension's own resource, by path) in a hidden frame under a closed shadow
 * root, posts it one end of a fresh `MessageChannel` with the offer's nonce (to that page's
 * origin only), and removes the frame once the background says on that port that it took it.
 * Requests that arrive on the direct port are answered there; change notices, and the end of
 * the background (its `chrome.runtime` port closing), stay on the runtime port. If the handoff
 * does not complete (the page removed the frame, the frame never loaded), everything keeps
 * using the runtime port.
 */
import type { MainRequest, RelayReply, RelayRequest } from '../channel/messages.js';
import {
  DIRECT_ACCEPTED,
  DIRECT_TAG,
  type DirectOffer,
  isDirectOffer,
  isHandoff,
  isRelayRequest,
  RELAY_PORT_NAME,
  randomHex,
} from '../channel/messages.js';
import type { RuntimePortLike } from '../channel/runtime-port.js';
import { connectRuntime, onReconnectRequest } from '../channel/runtime-port.js';
import {
  failure,
  outcomeOfJson,
  resultJson,
  resultText,
  sanitizeOutcome,
  sanitizeProgress,
  sanitizeTools,
} from '../channel/sanitize.js';

export interface RelayOptions {
  /** The window to listen on (tests pass happy-dom's). */
  win?: Window;
  /** Opens the port to the background (default `chrome.runtime.connect`). */
  connect?: () => RuntimePortLike;
  /**
   * The URL of one of this extension's pages (`chrome.runtime.getURL`, which may give a
   * per-session dynamic URL) and the origin its documents have (`chrome-extension://ID`).
   */
  extension?: { url(path: string): string; origin: string };
}

/** How long a direct-port handoff may take before its frame is removed and the offer dropped. */
const DIRECT_HANDOFF_MS = 10_000;

function runtimeExtension(): { url(path: string): string; origin: string } | undefined {
  const runtime = (
    globalThis as { chrome?: { runtime?: { id?: string; getURL?(path: string): string } } }
  ).chrome?.runtime;
  const getURL = runtime?.getURL;
  if (!getURL || !runtime.id) return undefined;
  return { url: (path) => getURL(path), origin: `chrome-extension://${runtime.id}` };
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
  /** Requests and answers travel on the direct port (not through `chrome.runtime`). */
  readonly direct: boolean;
  /**
   * Requests made in this isolated world (the extension's tab session, which serves the tab to
   * a host from inside it): the same requests and answers as the background's, checked the
   * same way, without leaving the renderer. Change notices reach `listener` too.
   */
  readonly local: LocalRelay;
}

/** The relay's requests from its own isolated world (`RelayState.local`). */
export interface LocalRelay {
  /** The MAIN world's port was accepted: requests can be answered. */
  readonly accepted: boolean;
  request(message: RelayRequest): void;
  /** Hears every answer to a local request, and every change notice; returns an unsubscribe. */
  listen(listener: (reply: RelayReply) => void): () => void;
}

type Via = 'runtime' | 'direct' | 'local';

interface Pending {
  backgroundId: number;
  op: 'list' | 'call';
  /** The port the request came on, which its answer goes back on. */
  via: Via;
  /** The call asked for progress: the last report passed on (-Infinity before the first). */
  progress?: number;
}

export function startRelay(options: RelayOptions = {}): RelayState {
  const win = options.win ?? window;
  const connect = options.connect ?? (() => connectRuntime(RELAY_PORT_NAME));
  const extension = options.extension ?? runtimeExtension();
  const localListeners = new Set<(reply: RelayReply) => void>();
  const local: LocalRelay = {
    get accepted() {
      return state.accepted;
    },
    request: (message) => {
      if (isRelayRequest(message)) onBackground(message, 'local');
    },
    listen(listener) {
      localListeners.add(listener);
      return () => localListeners.delete(listener);
    },
  };
  const state = { accepted: false, refused: 0, direct: false, local };
  let nonce = '';
  let main: MessagePort | undefined;
  let background: RuntimePortLike | undefined;
  /** The accepted direct port to the background, and the handoff in progress. */
  let direct: MessagePort | undefined;
  let offering: { cancel(): void } | undefined;
  const pending = new Map<string, Pending>();
  const idPrefix = randomHex(win.crypto.getRandomValues.bind(win.crypto));
  let counter = 0;

  const toMain = (request: MainRequest) => main?.postMessage(request);
  const toBackground = (reply: RelayReply, via: Via = 'runtime') => {
    if (via === 'local') for (const listener of localListeners) listener(reply);
    else if (via === 'direct') direct?.postMessage(reply);
    else background?.postMessage(reply);
  };

  const onMain = (event: MessageEvent) => {
    const data = event.data as Record<string, unknown> | null;
    if (typeof data !== 'object' || data === null || data.nonce !== nonce) {
      state.refused++;
      return;
    }
    if (data.event === 'changed') {
      toBackground({ event: 'changed' });
      if (localListeners.size > 0) toBackground({ event: 'changed' }, 'local');
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
      toBackground({ id: call.backgroundId, progress: report }, call.via);
      return;
    }
    pending.delete(data.id as string);
    if ('resultJson' in data) {
      // The reader's JSON text of a call's result: passed on as it is on the direct port and to
      // a local request (the receiver parses it once), parsed here for the runtime port. A
      // listing never comes as text.
      const text = call.op === 'call' ? resultText(data.resultJson) : undefined;
      if (text !== undefined && call.via !== 'runtime') {
        toBackground({ id: call.backgroundId, resultJson: text }, call.via);
        return;
      }
      toBackground(
        {
          id: call.backgroundId,
          outcome:
            text === undefined
              ? failure('response_invalid', 'The result is not JSON, or is too large.')
              : outcomeOfJson(text),
        },
        call.via,
      );
      return;
    }
    // On the direct port (and locally) a call's result goes as JSON text, parsed back once.
    const json =
      call.via !== 'runtime' && call.op === 'call' ? resultJson(data.outcome) : undefined;
    if (json !== undefined) {
      toBackground({ id: call.backgroundId, resultJson: json }, call.via);
      return;
    }
    const outcome = sanitizeOutcome(data.outcome);
    toBackground(
      {
        id: call.backgroundId,
        outcome:
          call.op === 'list' && outcome.ok
            ? { ok: true, result: sanitizeTools(outcome.result) }
            : outcome,
      },
      call.via,
    );
  };

  const onBackground = (message: unknown, via: Via) => {
    if (via === 'runtime' && isDirectOffer(message)) {
      offerDirect(message);
      return;
    }
    if (!isRelayRequest(message)) return;
    if (message.op === 'abort') {
      for (const [id, call] of pending)
        if (call.backgroundId === message.id && call.via === via)
          toMain({ nonce, id, op: 'abort' });
      return;
    }
    counter += 1;
    const id = `${idPrefix}-${counter}`;
    const progress = message.op === 'call' && message.progress === true;
    pending.set(id, {
      backgroundId: message.id,
      op: message.op,
      via,
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
            ...(typeof message.argsJson === 'string'
              ? { argsJson: message.argsJson }
              : { args: message.args }),
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

  /** Hands the extension's link page one end of a new channel, with the background's nonce. */
  const offerDirect = (offer: DirectOffer) => {
    if (direct || offering || !extension || !/^[\w-]+\.html$/.test(offer.page)) return;
    const { origin } = extension;
    let url: URL;
    try {
      url = new URL(extension.url(offer.page));
    } catch {
      return;
    }
    const doc = win.document;
    const holder = doc.createElement('div');
    holder.setAttribute('style', 'display:none !important');
    const frame = doc.createElement('iframe');
    frame.src = url.href;
    const channel = new MessageChannel();
    const mine = channel.port1;
    const owner = background;
    const end = (accepted: boolean) => {
      clearTimeout(timer);
      holder.remove();
      if (offering === attempt) offering = undefined;
      if (!accepted) mine.close();
    };
    const attempt = { cancel: () => end(false) };
    offering = attempt;
    const timer = setTimeout(() => end(false), DIRECT_HANDOFF_MS);
    mine.onmessage = (event) => {
      if (direct === mine) {
        onBackground(event.data, 'direct');
        return;
      }
      if (event.data !== DIRECT_ACCEPTED || offering !== attempt || background !== owner) return;
      direct = mine;
      state.direct = true;
      end(true);
    };
    // Posted to the link page's origin only: a frame the page navigated elsewhere gets nothing.
    frame.addEventListener(
      'load',
      () =>
        frame.contentWindow?.postMessage({ toolwire: DIRECT_TAG, nonce: offer.direct }, origin, [
          channel.port2,
        ]),
      { once: true },
    );
    holder.attachShadow({ mode: 'closed' }).append(frame);
    (doc.body ?? doc.documentElement).append(holder);
  };

  const dropDirect = () => {
    offering?.cancel();
    direct?.close();
    direct = undefined;
    state.direct = false;
  };

  const openBackground = () => {
    const link = connect();
    background = link;
    link.onMessage.addListener((message) => onBackground(message, 'runtime'));
    link.onDisconnect.addListener(() => {
      if (background !== link) return;
      // The tab's own session (local requests) goes on without the background.
      for (const [id, call] of pending) {
        if (call.via === 'local') continue;
        toMain({ nonce, id, op: 'abort' });
        pending.delete(id);
      }
      background = undefined;
      dropDirect();
    });
  };

  win.addEventListener('message', onWindowMessage, { capture: true });
  // A service worker that was stopped and started again asks its tabs to connect once more.
  onReconnectRequest(() => {
    if (state.accepted && !background) openBackground();
  });
  return state;
}
