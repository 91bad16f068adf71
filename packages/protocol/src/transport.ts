/**
 * The transport under the protocol (docs/style.md 3): text frames in, text frames out, a close
 * signal. A WebSocket fits it in a few lines; createLinkedPair is the in-memory pair for tests.
 */
export interface TransportCloseInfo {
  code?: number;
  reason?: string;
}

/** One end of createLinkedPair. */
export interface LinkedTransport extends Transport {
  readonly isOpen: boolean;
}

export interface Transport {
  send(frame: string): void;
  close(info?: TransportCloseInfo): void;
  /** Set by the one engine that owns the transport. */
  onmessage?: ((frame: string) => void) | undefined;
  onclose?: ((info: TransportCloseInfo) => void) | undefined;
}

/**
 * Two transports wired to each other. Delivery is asynchronous and in order (a microtask per
 * frame), like a socket; closing either end closes both, and each end hears `onclose` once.
 * Each end says `isOpen` as a socket would. The in-memory pair a whole session runs over in
 * unit tests (the page's PageSessionCore on one end, the host's HostSessionCore on the other).
 */
export function createLinkedPair(): [LinkedTransport, LinkedTransport] {
  let closed = false;
  const make = (): LinkedTransport & { peer?: Transport } => ({
    get isOpen() {
      return !closed;
    },
    send(frame: string) {
      if (closed) throw new Error('toolwire: the linked transport is closed.');
      if (typeof frame !== 'string') throw new TypeError('toolwire: transports carry text frames.');
      const peer = this.peer;
      queueMicrotask(() => {
        if (!closed) peer?.onmessage?.(frame);
      });
    },
    close(info: TransportCloseInfo = {}) {
      if (closed) return;
      closed = true;
      const ends = [a, b];
      queueMicrotask(() => {
        for (const end of ends) end.onclose?.(info);
      });
    },
  });
  const a = make();
  const b = make();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
