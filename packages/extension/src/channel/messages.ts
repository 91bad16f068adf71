/**
 * The three hops of a tab's tools and what travels on each (docs in packages/extension/README.md):
 * the MAIN world (page-shared) <-> the isolated relay over a private MessagePort, and the relay
 * <-> the background over a `chrome.runtime` port. Shapes and guards only; no runtime imports.
 */
import type { TabCallOutcome, TabProgress } from '../types.js';

/** The `data.toolwire` tag of the one window message that hands the private port over. */
export const HANDOFF_TAG = 'toolwire-extension-handoff';

/**
 * The `toolwire` tag of a direct-port handoff: the relay hands one end of a `MessageChannel`,
 * with the background's one-time nonce, to the extension's link page (a hidden extension frame),
 * which passes it on to the service worker. From then on requests and answers travel on that
 * port, renderer to renderer, instead of through the browser's extension messaging.
 */
export const DIRECT_TAG = 'toolwire-extension-direct';

/** background -> relay, on the `chrome.runtime` port: embed `page`, hand it a port with `nonce`. */
export interface DirectOffer {
  direct: string;
  page: string;
}

/** relay -> link page -> service worker, with the port: the offer's nonce, nothing else. */
export interface DirectHandoff {
  toolwire: typeof DIRECT_TAG;
  nonce: string;
}

/** background -> relay, first on the direct port: the port was accepted. */
export const DIRECT_ACCEPTED = 'toolwire-direct-accepted';

/** The name of the relay's `chrome.runtime` port (the background accepts only top frames). */
export const RELAY_PORT_NAME = 'toolwire-relay';

/** The MAIN world's handoff, posted once at document_start with the private port. */
export interface Handoff {
  toolwire: typeof HANDOFF_TAG;
  nonce: string;
}

/**
 * relay -> MAIN world, on the private port: every request carries the nonce and a fresh id. A
 * call asks for progress reports with `progress: true`; `abort` cancels the request of that id.
 * A call's input is `args`, or `argsJson` (its JSON text) when it came so from the background.
 */
export type MainRequest =
  | { nonce: string; id: string; op: 'list' }
  | {
      nonce: string;
      id: string;
      op: 'call';
      name: string;
      args?: unknown;
      argsJson?: string;
      progress?: true;
    }
  | { nonce: string; id: string; op: 'abort' };

/**
 * MAIN world -> relay: an answer to one request id, a progress report of a call that asked for
 * them (before its answer), or a change notice.
 */
export type MainReply =
  | { nonce: string; id: string; outcome: TabCallOutcome }
  /** A call's result, as JSON text (`outcome` for anything else). */
  | { nonce: string; id: string; resultJson: string }
  | { nonce: string; id: string; progress: TabProgress }
  | { nonce: string; event: 'changed' };

/**
 * background -> relay. On the direct port a call's input goes as JSON text (`argsJson`): one
 * string crosses both ports and only the reader parses it.
 */
export type RelayRequest =
  | { id: number; op: 'list' }
  | { id: number; op: 'call'; name: string; args?: unknown; argsJson?: string; progress?: true }
  | { id: number; op: 'abort' };

/**
 * relay -> background: an outcome (a list's result is the checked TabTool[]), a checked
 * progress report of a pending call that asked for them, or a change.
 */
export type RelayReply =
  | { id: number; outcome: TabCallOutcome }
  /**
   * A call's result as JSON text, the reader's text passed on as it came: on the direct port
   * only (the background parses it, which proves it is JSON).
   */
  | { id: number; resultJson: string }
  | { id: number; progress: TabProgress }
  | { event: 'changed' };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isHandoff(data: unknown): data is Handoff {
  return (
    isRecord(data) &&
    data.toolwire === HANDOFF_TAG &&
    typeof data.nonce === 'string' &&
    /^[0-9a-f]{32}$/.test(data.nonce)
  );
}

export function isDirectOffer(data: unknown): data is DirectOffer {
  return (
    isRecord(data) &&
    typeof data.direct === 'string' &&
    /^[0-9a-f]{32}$/.test(data.direct) &&
    typeof data.page === 'string'
  );
}

export function isDirectHandoff(data: unknown): data is DirectHandoff {
  return (
    isRecord(data) &&
    data.toolwire === DIRECT_TAG &&
    typeof data.nonce === 'string' &&
    /^[0-9a-f]{32}$/.test(data.nonce)
  );
}

/** A call's `progress` flag: absent, or exactly `true`. */
function progressFlag(value: unknown): boolean {
  return value === undefined || value === true;
}

export function isRelayRequest(data: unknown): data is RelayRequest {
  if (!isRecord(data) || !Number.isSafeInteger(data.id)) return false;
  if (data.op === 'call')
    return (
      typeof data.name === 'string' &&
      (data.argsJson === undefined || typeof data.argsJson === 'string') &&
      progressFlag(data.progress)
    );
  return data.op === 'list' || data.op === 'abort';
}

/** The shape only: a progress report's fields are checked by `sanitizeProgress`. */
export function isRelayReply(data: unknown): data is RelayReply {
  if (!isRecord(data)) return false;
  if (data.event === 'changed') return true;
  if (!Number.isSafeInteger(data.id)) return false;
  if ('resultJson' in data) return typeof data.resultJson === 'string';
  return 'outcome' in data ? isRecord(data.outcome) : isRecord(data.progress);
}

/** 32 hex digits from the platform's CSPRNG: a nonce, or the random half of a call id. */
export function randomHex(getRandomValues: (array: Uint8Array<ArrayBuffer>) => unknown): string {
  const bytes = new Uint8Array(16);
  getRandomValues(bytes);
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}
