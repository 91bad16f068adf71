/** What the panel and the background say to each other over the `toolwire-panel` port. */
import type {
  TabCallOutcome,
  TabGoneReason,
  TabIdentity,
  TabProgress,
  TabTool,
} from '../../src/types.js';

export const PANEL_PORT_NAME = 'toolwire-panel';

/** panel -> background. `cancel` cancels the panel's call of that id (the Cancel button). */
export type PanelRequest =
  | { op: 'watch'; tabId: number }
  | { op: 'call'; id: number; tabId: number; name: string; args: unknown }
  | { op: 'cancel'; id: number };

/**
 * background -> panel. `progress`: a report of the panel's call of that id, while it runs
 * (checked by the relay and by the background; its message is the page's word: show it as text).
 */
export type PanelEvent =
  | { type: 'tools'; tab: TabIdentity; tools: TabTool[] }
  | { type: 'error'; tabId: number; code: string; message: string }
  | { type: 'gone'; tabId: number; reason: TabGoneReason }
  | { type: 'progress'; id: number; progress: TabProgress }
  | { type: 'outcome'; id: number; outcome: TabCallOutcome };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A panel's request, checked (only the extension's own pages connect, but a page can err). */
export function isPanelRequest(message: unknown): message is PanelRequest {
  if (!isRecord(message)) return false;
  if (message.op === 'watch') return Number.isSafeInteger(message.tabId);
  if (message.op === 'cancel') return Number.isSafeInteger(message.id);
  return (
    message.op === 'call' &&
    Number.isSafeInteger(message.id) &&
    Number.isSafeInteger(message.tabId) &&
    typeof message.name === 'string'
  );
}
