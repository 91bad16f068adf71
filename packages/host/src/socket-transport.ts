/**
 * A `ws` socket as a protocol Transport (STYLE 3): text frames in and out, one close signal.
 * Binary frames (ASFT transfers, not handled yet) are left to `onBinary`.
 */
import type { Transport, TransportCloseInfo } from '@toolwire/protocol';
import type { WebSocket } from 'ws';

export interface SocketTransportOptions {
  onBinary?: (data: Buffer) => void;
  /** Socket errors (an oversized frame, a reset); `close` follows each one. */
  onError?: (error: Error) => void;
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
      socket.close(info.code ?? 1000, (info.reason ?? '').slice(0, 120));
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
