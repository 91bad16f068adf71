/**
 * The browser WebSocket as a Connection: a few lines, no work of its own per frame beyond the
 * one call that hands the text on.
 */
import type { TransportCloseInfo } from '@toolwire/protocol';
import type { Connection, Connector } from './connection.js';

/** 1: OPEN in every WebSocket implementation (read from the instance, not the class). */
const OPEN = 1;

class WebSocketConnection implements Connection {
  onmessage?: ((frame: string) => void) | undefined;
  onclose?: ((info: TransportCloseInfo) => void) | undefined;
  onopen?: (() => void) | undefined;
  onerror?: (() => void) | undefined;
  onbinary?: (() => void) | undefined;
  #socket: WebSocket;

  constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.binaryType = 'arraybuffer';
    socket.onopen = () => this.onopen?.();
    socket.onmessage = (event) => {
      const data = event.data as unknown;
      // Binary frames (ASFT transfers go host-bound only) are not ours to read.
      if (typeof data === 'string') this.onmessage?.(data);
      else this.onbinary?.();
    };
    socket.onerror = () => this.onerror?.();
    socket.onclose = (event) => this.onclose?.({ code: event.code, reason: event.reason });
  }

  get isOpen(): boolean {
    return this.#socket.readyState === OPEN;
  }

  send(frame: string): void {
    this.#socket.send(frame);
  }

  close(info: TransportCloseInfo = {}): void {
    this.#socket.close(info.code, info.reason);
  }
}

/** Connections over `Socket` (the global WebSocket, or a stand-in with its shape). */
export function webSocketConnector(Socket: typeof WebSocket): Connector {
  return (url) => new WebSocketConnection(new Socket(url));
}
