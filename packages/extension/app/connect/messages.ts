/**
 * What the side panel's "Connect this tab" section and the background say to each other over
 * the `toolwire-connect` port. Shapes and guards only.
 */
import type { TabGuard, TabLinkState } from './tab-link.js';
import { TAB_GUARDS } from './tab-link.js';

export const CONNECT_PORT_NAME = 'toolwire-connect';

/** panel -> background. `pairing`: the pasted address; without it the stored pairing is used. */
export type ConnectRequest =
  | { op: 'status'; tabId: number }
  | { op: 'connect'; tabId: number; guard: TabGuard; pairing?: string }
  | { op: 'disconnect'; tabId: number };

/** What the background knows of a tab, and of the extension's pairing. */
export interface ConnectStatus {
  type: 'status';
  tabId: number;
  /** Undefined: the tab was never connected (since the background started). */
  state?: TabLinkState;
  /** The host the extension holds a pairing with (address without secret), if any. */
  pairedWith?: string;
  /** The extension's origin, for `toolwire pair --extension`. */
  origin: string;
}

/** background -> panel: a status (after any change, to every panel), or a refused request. */
export type ConnectEvent =
  | ConnectStatus
  | { type: 'error'; tabId: number; code: string; message: string };

function isTabId(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

export function isConnectRequest(value: unknown): value is ConnectRequest {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  if (!isTabId(message.tabId)) return false;
  if (message.op === 'status' || message.op === 'disconnect') return true;
  return (
    message.op === 'connect' &&
    TAB_GUARDS.includes(message.guard as TabGuard) &&
    (message.pairing === undefined || typeof message.pairing === 'string')
  );
}
