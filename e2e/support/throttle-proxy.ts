/**
 * A TCP proxy on 127.0.0.1 that paces bytes, each way, to a set rate (issue 16 item 3: "a Node
 * proxy on loopback that paces bytes to about 10 Mbit/s"). It stands for a slow link between a
 * page and its host: a WebSocket through it is an ordinary one (the proxy never reads the
 * bytes), only slower. The host still sees a loopback address, so tests set `compress` on the
 * host themselves.
 *
 * Each direction has its own budget, refilled continuously at `bitsPerSecond` and capped at
 * 16 KiB (so an idle link cannot save up a burst); the reading side is paused while more than
 * 1 MiB waits, as a real link's window would hold the sender back.
 */
import type { AddressInfo, Socket } from 'node:net';
import { connect, createServer } from 'node:net';

export interface ThrottledProxy {
  port: number;
  /** `url` (ws:// or http://) with its port replaced by the proxy's. */
  via(url: string): string;
  /** Bytes carried so far, each way. */
  readonly carried: { up: number; down: number };
  close(): Promise<void>;
}

const BURST_BYTES = 16 * 1024;
const HIGH_WATER_BYTES = 1024 * 1024;
const TICK_MS = 2;

/** Moves bytes from `from` to `to` at `bytesPerSecond`; `count` hears every byte sent. */
function pace(from: Socket, to: Socket, bytesPerSecond: number, count: (n: number) => void) {
  const queue: Buffer[] = [];
  let queued = 0;
  let credit = 0;
  let last = performance.now();
  let timer: NodeJS.Timeout | undefined;
  let ended = false;

  const pump = () => {
    timer = undefined;
    const now = performance.now();
    credit = Math.min(BURST_BYTES, credit + ((now - last) / 1000) * bytesPerSecond);
    last = now;
    while (queue.length > 0 && credit >= 1) {
      const head = queue[0] as Buffer;
      const n = Math.min(head.length, Math.floor(credit));
      to.write(head.subarray(0, n));
      count(n);
      credit -= n;
      queued -= n;
      if (n === head.length) queue.shift();
      else queue[0] = head.subarray(n);
    }
    if (queued < HIGH_WATER_BYTES && from.isPaused()) from.resume();
    // The pacing itself (a slow link), not a wait: tests assert bytes, not times.
    if (queue.length > 0) timer = setTimeout(pump, TICK_MS);
    else if (ended) to.end();
  };

  from.on('data', (chunk: Buffer) => {
    queue.push(chunk);
    queued += chunk.length;
    if (queued >= HIGH_WATER_BYTES) from.pause();
    if (!timer) {
      // An idle link starts from now, with the budget it had (never more than a burst).
      if (queue.length === 1) last = performance.now();
      pump();
    }
  });
  from.on('end', () => {
    ended = true;
    if (!timer && queue.length === 0) to.end();
  });
  const stop = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  from.on('close', stop);
  to.on('close', stop);
}

/** A proxy from a free port on 127.0.0.1 to `target` (a port on 127.0.0.1). */
export async function startThrottledProxy(options: {
  /** The port it forwards to, read at each connection (the host may start after the proxy). */
  targetPort: number | (() => number);
  bitsPerSecond: number;
}): Promise<ThrottledProxy> {
  const rate = options.bitsPerSecond / 8;
  const carried = { up: 0, down: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const target =
      typeof options.targetPort === 'function' ? options.targetPort() : options.targetPort;
    const upstream = connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    pace(client, upstream, rate, (n) => {
      carried.up += n;
    });
    pace(upstream, client, rate, (n) => {
      carried.down += n;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    carried,
    via(url) {
      const rewritten = new URL(url);
      rewritten.port = String(port);
      return rewritten.href;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
