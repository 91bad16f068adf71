/** What the panel and the background say to each other over the `toolwire-panel` port. */
import type { TabCallOutcome, TabGoneReason, TabIdentity, TabTool } from '../../src/types.js';

export const PANEL_PORT_NAME = 'toolwire-panel';

export type PanelRequest =
  | { op: 'watch'; tabId: number }
  | { op: 'call'; id: number; tabId: number; name: string; args: unknown };

export type PanelEvent =
  | { type: 'tools'; tab: TabIdentity; tools: TabTool[] }
  | { type: 'error'; tabId: number; code: string; message: string }
  | { type: 'gone'; tabId: number; reason: TabGoneReason }
  | { type: 'outcome'; id: number; outcome: TabCallOutcome };
