/**
 * A bare Chrome DevTools Protocol client on the browser's own WebSocket endpoint (Chromium
 * started with `--remote-debugging-port=0`, which writes the port to `DevToolsActivePort` in
 * its profile). It enables no domain by itself: a test or bench sends exactly what it needs
 * (`Extensions.loadUnpacked`, `Target.*`, `Runtime.evaluate` in one target) and nothing
 * observes the pages' sockets.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';

export interface Cdp {
  send<T = any>(method: string, params?: object, sessionId?: string): Promise<T>;
  /** `expression` evaluated (awaited) in an attached target's session, its value returned. */
  evaluate<T = any>(sessionId: string, expression: string): Promise<T>;
  close(): void;
}

/** The browser endpoint of the Chromium whose profile is `userDataDir`, once it is written. */
export async function browserEndpoint(userDataDir: string, timeoutMs = 15_000): Promise<string> {
  const file = join(userDataDir, 'DevToolsActivePort');
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(file)) {
      const [port, path] = readFileSync(file, 'utf8').split('\n');
      if (port && path) return `ws://127.0.0.1:${port}${path}`;
    }
    if (Date.now() > until) throw new Error(`Chromium wrote no ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function connectCdp(endpoint: string): Promise<Cdp> {
  const socket = new WebSocket(endpoint, { perMessageDeflate: false, maxPayload: 256 << 20 });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let nextId = 0;
  const pending = new Map<number, { resolve(value: any): void; reject(error: Error): void }>();
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    const waiter = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`${message.error.message} (${message.error.code})`));
    else waiter.resolve(message.result);
  });
  const send = <T>(method: string, params: object = {}, sessionId?: string) =>
    new Promise<T>((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  return {
    send,
    async evaluate(sessionId, expression) {
      const { result, exceptionDetails } = await send<any>(
        'Runtime.evaluate',
        { expression, awaitPromise: true, returnByValue: true },
        sessionId,
      );
      if (exceptionDetails)
        throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
      return result.value;
    },
    close: () => socket.close(),
  };
}
