/**
 * A `ws` socket as a protocol Transport (docs/style.md 3): text frames in and out, one close signal.
 * Binary frames (ASFT transfers, not handled yet) are left to `onBinary`.
 */
import type { Transport, TransportCloseInfo } from '@toolwire/protocol';
import type { WebSocket } from 'ws';

export interface SocketTransportOptions {
  onBinary?: (data: Buffer) => void;
  /** Socket errors (an oversized frame, a reset); `close` follows each one. */
  onError?: (error: Error) => void;
}

/** The WebSocket limit on a close reason: 123 bytes of UTF-8 (`ws` throws beyond it). */
const MAX_CLOSE_REASON_BYTES = 123;

/** `reason` cut to fit a close frame, at a character boundary (it may hold a page's origin). */
export function clipCloseReason(reason: string): string {
  let clipped = reason.slice(0, MAX_CLOSE_REASON_BYTES);
  while (Buffer.byteLength(clipped) > MAX_CLOSE_REASON_BYTES) clipped = clipped.slice(0, -1);
  return clipped;
}

export function socketTransport(
  socket: WebSocket,
  options: SocketTransportOptions = {},
): Transport {
  let closed = false;
  const transport: Transport = {
    send(frame: string) {
      if (socket.readyState !== socket.OPEN) throw new Error('the socket is not open');
      socket.send(frame);
    },
    close(info: TransportCloseInfo = {}) {
      if (socket.readyState === socket.CLOSED || socket.readyState === socket.CLOSING) return;
      socket.close(info.code ?? 1000, clipCloseReason(info.reason ?? ''));
    },
  };
  socket.on('message', (data, isBinary) => {
    const buffer = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : Buffer.from(data);
    if (isBinary) options.onBinary?.(buffer);
    else transport.onmessage?.(buffer.toString('utf8'));
  });
  // `ws` throws an 'error' nobody listens to; every one is followed by 'close', handled below.
  socket.on('error', (error) => options.onError?.(error));
  socket.on('close', (code, reason) => {
    if (closed) return;
    closed = true;
    transport.onclose?.({ code, reason: reason.toString() });
  });
  return transport;
}
