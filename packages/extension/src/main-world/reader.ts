/**
 * The MAIN-world half (an extension's content script with `"world": "MAIN"`, `document_start`).
 * It runs before any page script, so it takes what it needs while the page cannot have touched
 * it yet: `MessageChannel`, `postMessage`, `crypto`. It makes a private channel and posts one
 * end to the isolated relay with a fresh nonce; everything after goes over that port, which
 * page scripts never hold. Requests must carry the nonce; each answer names its request's id.
 * An `abort` aborts a running call's signal (the tool's own signal aborts with it); a call that
 * asks for progress gets the tool's reports, checked and throttled, before its answer.
 *
 * Injected late (`chrome.scripting.executeScript` into a tab opened before the extension), it
 * runs after the page's scripts instead: what it takes may be the page's already, so against
 * that page the channel is worth no more than the page's own word about its tools (which is all
 * such a page could gain); the relay and the background check what comes out the same way.
 *
 * The page shares this world's prototypes and may redefine them before the first request
 * arrives (`MessageEvent.prototype.data`, `Map.prototype.set`, `Object.prototype` getters): a
 * request is read only through the built-ins `./primordials.js` took at `document_start`, and
 * only its own fields.
 */
import type { MainReply } from '../channel/messages.js';
import { HANDOFF_TAG, randomHex } from '../channel/messages.js';
import { failure, sanitizeProgress } from '../channel/sanitize.js';
import type { TabCallOutcome, TabProgress } from '../types.js';
import { isArray, jsonText, jsonValue, messageData, ownField, SealedMap } from './primordials.js';
import { errorOutcome, ToolReader, toolSource } from './read-tools.js';

/** Coalesces bursts of changes into one notice. */
const CHANGE_DELAY_MS = 30;
/**
 * At most one progress report per call in this long: the first goes at once, the latest of
 * those that follow within the window goes at its end, and one still held goes before the
 * answer. A tool reporting in a tight loop costs one message per window, not one per report.
 */
const PROGRESS_INTERVAL_MS = 50;

/**
 * Starts the reader in this document. Call it once, synchronously, from a MAIN-world content
 * script at `document_start` (the built `@toolwire/extension/content/main-world.js` does).
 */
export function startMainWorldReader(win: Window = window): void {
  const origin = win.location.origin;
  // An opaque origin cannot be checked by the relay: such documents get no reader.
  if (origin === 'null' || !/^https?:/.test(win.location.protocol)) return;
  const globals = win as unknown as typeof globalThis;
  const Channel = globals.MessageChannel;
  const post = win.postMessage.bind(win);
  const nonce = randomHex(win.crypto.getRandomValues.bind(win.crypto));
  const setTimer = win.setTimeout.bind(win);
  const clearTimer = win.clearTimeout.bind(win);
  const Controller = globals.AbortController;
  const channel = new Channel();
  const port = channel.port1;
  const postToRelay = port.postMessage.bind(port);
  const send = (message: MainReply) => postToRelay(message);
  const reader = new ToolReader(win);
  const running = new SealedMap<string, AbortController>();
  const watched = new WeakSet<EventTarget>();

  let changeTimer: number | undefined;
  const changed = () => {
    if (changeTimer !== undefined) return;
    changeTimer = setTimer(() => {
      changeTimer = undefined;
      send({ nonce, event: 'changed' });
    }, CHANGE_DELAY_MS);
  };
  // The polyfill (or a native context) may appear after us: watch whatever is there at each list.
  const watch = () => {
    const source = toolSource(win);
    if (!source || watched.has(source)) return;
    watched.add(source);
    source.addEventListener('toolchange', changed);
  };

  /**
   * The progress reports of one call: checked (a finite `progress` that grows, a clipped
   * message), at most one per PROGRESS_INTERVAL_MS, and none after `finish()`.
   */
  const progressOf = (id: string) => {
    let latest: number | undefined;
    let held: TabProgress | undefined;
    let timer: number | undefined;
    let done = false;
    const flush = () => {
      timer = undefined;
      if (!held) return;
      send({ nonce, id, progress: held });
      held = undefined;
      timer = setTimer(flush, PROGRESS_INTERVAL_MS);
    };
    return {
      report(value: unknown): void {
        if (done) return;
        let checked: TabProgress | undefined;
        try {
          // The tool's object: its getters are the page's code, and may throw.
          checked = sanitizeProgress(value, latest);
        } catch {
          return;
        }
        if (!checked) return;
        latest = checked.progress;
        if (timer !== undefined) {
          held = checked;
          return;
        }
        send({ nonce, id, progress: checked });
        timer = setTimer(flush, PROGRESS_INTERVAL_MS);
      },
      finish(): void {
        done = true;
        if (timer !== undefined) clearTimer(timer);
        timer = undefined;
        if (held) send({ nonce, id, progress: held });
        held = undefined;
      },
    };
  };

  /** A string, or undefined when `value` is not JSON (the relay then says so). */
  const textOf = (value: unknown): string | undefined => {
    try {
      const json = jsonText(value);
      return typeof json === 'string' ? json : undefined;
    } catch {
      // A cycle, a BigInt, a getter that throws.
      return undefined;
    }
  };

  const answer = (id: string, outcome: TabCallOutcome, call: boolean) => {
    // A call's result goes as JSON text: a string crosses the ports as one copy, and the
    // background parses it once (neither the relay nor the clone walks the object).
    const json = call && outcome.ok ? textOf(outcome.result) : undefined;
    if (json !== undefined) {
      send({ nonce, id, resultJson: json });
      return;
    }
    try {
      send({ nonce, id, outcome });
    } catch {
      // A result the structured clone refuses (a function, a proxy): it cannot be sent.
      send({
        nonce,
        id,
        outcome: {
          ok: false,
          error: {
            code: 'tool_protocol_bridge_failed',
            name: 'DataCloneError',
            message: 'The result cannot be sent out of the page.',
            retryable: false,
            details: null,
          },
        },
      });
    }
  };

  port.onmessage = (event: MessageEvent) => {
    const request = requestOf(messageData(event), nonce);
    if (!request) return;
    if (request.op === 'abort') {
      running.get(request.id)?.abort();
      return;
    }
    if (running.has(request.id)) return;
    const controller = new Controller();
    running.set(request.id, controller);
    // Reports are asked for per call: a call that did not ask builds nothing for them.
    const progress = request.op === 'call' && request.progress ? progressOf(request.id) : undefined;
    const work: Promise<TabCallOutcome> =
      request.op === 'list'
        ? reader.list().then((tools) => {
            watch();
            return { ok: true as const, result: tools };
          })
        : reader.call(request.name, request.args, controller.signal, progress?.report);
    work.catch(errorOutcome).then((outcome) => {
      running.delete(request.id);
      progress?.finish();
      // Cancelled: whatever the tool's source rejected with, the caller's cancel is the cause.
      answer(
        request.id,
        controller.signal.aborted && !outcome.ok
          ? failure('tool_call_cancelled', 'The caller cancelled the call.', 'AbortError')
          : outcome,
        request.op === 'call',
      );
    });
  };

  // Loading adds tools (scripts, forms): tell the relay when the document is parsed and loaded.
  // A frame (not the top) with no `window.tools` or `document.modelContext` then stays silent:
  // every frame of a page runs this reader, and most (ads, embeds) have no tools to list.
  const top = isTop(win);
  const loaded = () => {
    if (top || toolSource(win)) changed();
  };
  win.addEventListener('DOMContentLoaded', loaded, { once: true });
  win.addEventListener('load', loaded, { once: true });
  post({ toolwire: HANDOFF_TAG, nonce }, origin, [channel.port2]);
  // Injected into a document that had loaded already (a tab opened before the extension): no
  // load event is coming, so say now whether there is something to list.
  if (win.document.readyState === 'complete') loaded();
}

function isTop(win: Window): boolean {
  try {
    return win.top === win;
  } catch {
    return false;
  }
}

/** A request as the reader keeps it: every field its own, none left to a prototype. */
type Request =
  | { id: string; op: 'list' }
  | { id: string; op: 'abort' }
  | { id: string; op: 'call'; name: string; args: unknown; progress: boolean };

/**
 * The relay's request (`MainRequest` in `../channel/messages.js`), as a fresh object of its own
 * fields: no read of `data` reaches a prototype, no built-in the page can replace sees it, and
 * the copy has every field the reader reads (an absent `progress` would be looked up on
 * `Object.prototype`, with the request as `this`).
 */
function requestOf(data: unknown, nonce: string): Request | undefined {
  if (typeof data !== 'object' || data === null || isArray(data)) return undefined;
  const id = ownField(data, 'id');
  if (ownField(data, 'nonce') !== nonce || typeof id !== 'string') return undefined;
  const op = ownField(data, 'op');
  if (op === 'list') return { id, op };
  if (op === 'abort') return { id, op };
  if (op !== 'call') return undefined;
  const name = ownField(data, 'name');
  const progress = ownField(data, 'progress');
  if (typeof name !== 'string' || (progress !== undefined && progress !== true)) return undefined;
  // The input as JSON text (the direct port's way), or as a value.
  const argsJson = ownField(data, 'argsJson');
  let args: unknown;
  if (argsJson === undefined) args = ownField(data, 'args');
  else if (typeof argsJson !== 'string') return undefined;
  else
    try {
      args = jsonValue(argsJson);
    } catch {
      return undefined;
    }
  return { id, op, name, args, progress: progress === true };
}
