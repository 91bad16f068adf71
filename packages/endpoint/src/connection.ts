/**
 * How the endpoint reaches its host: a protocol Transport (text frames, one close signal) that
 * also says when it opened. The browser WebSocket is one (websocket-transport.ts); tests run the
 * session over the in-memory linked pair.
 */
import type { Transport } from '@toolwire/protocol';

export interface Connection extends Transport {
  /** Once: the connection can carry frames (a socket's `open`). */
  onopen?: (() => void) | undefined;
  /** A connection error; a close follows it. */
  onerror?: (() => void) | undefined;
  /** A binary frame arrived (not ours to read, but the host is alive). */
  onbinary?: (() => void) | undefined;
  /** True while `send` delivers: after open, before close. */
  readonly isOpen: boolean;
}

/** Opens one connection to `url` (the secret included); may throw, like `new WebSocket`. */
export type Connector = (url: string) => Connection;
