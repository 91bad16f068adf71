/**
 * The control API's channel: `GET /v1/channel` upgraded to a WebSocket that carries the API's
 * requests and answers, many in flight on one connection. A kept-alive HTTP
 * request still costs its own headers, parser objects and write per call, and only one request
 * at a time per socket; the channel costs one small frame each way.
 *
 * 1. The upgrade passes server.ts's checks (loopback `Host`, no `Origin`, the secret), or is
 *    answered with their status and closed. The connection is the authenticated party from
 *    then on, as a page's WebSocket session is: no other process can write into it.
 * 2. A request is `{id, method, path, body?}`; its answer `{id, status, answer}`, the same
 *    status and JSON object the HTTP route answers. Requests run concurrently; answers go out
 *    as they are ready.
 * 3. A message that is not such a request closes the channel (1008): the client is not ours.
 * 4. `close(graceMs)` lets in-flight answers out, closes each channel once it has none, and
 *    cuts the rest after `graceMs` (server.ts).
 * 5. A channel that closes with requests in flight aborts each one's signal: their calls are
 *    cancelled at the page (routes.ts).
 * 6. A call or batch that asked for progress (`progress: true`) gets `{id, progress: {progress,
 *    total?, message?}}` for each report, before its answer. Nothing else is sent unasked, so a
 *    client that never asks reads only answers.
 * 7. A `POST /v1/call` that asks `raw: true` and succeeds is answered with its result value
 *    taken out of the answer: `{id, status, answer, raw: true}`, a line break, then the value's
 *    JSON text. Written once here, read as it is by a client that only forwards it
 *    (channel.ts 7). Any other answer is as in 2.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { isPlainObject } from '@toolwire/protocol';
import { type WebSocket, WebSocketServer } from 'ws';
import type { ControlRoutes } from './routes.js';
import { ControlError, errorBody } from './routes.js';

/** The request body limit (routes.ts) and room for the envelope. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024 + 4096;

export interface ChannelServer {
  close(graceMs: number): void;
}

export function serveChannels(
  server: Server,
  options: {
    check(request: IncomingMessage, url: URL): void;
    handle: ControlRoutes['handle'];
    closing(): boolean;
  },
): ChannelServer {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
  });
  const inFlight = new Map<WebSocket, number>();

  const settle = (socket: WebSocket) => {
    if (options.closing() && (inFlight.get(socket) ?? 0) === 0) socket.close(1001, 'closing');
  };

  const serve = (socket: WebSocket) => {
    inFlight.set(socket, 0);
    /** Each request in flight's signal. */
    const askers = new Set<AbortController>();
    socket.on('close', () => {
      inFlight.delete(socket);
      for (const asker of askers) asker.abort();
      askers.clear();
    });
    socket.on('error', () => socket.terminate());
    socket.on('message', (data, isBinary) => {
      let message: unknown;
      try {
        message = isBinary ? undefined : JSON.parse(data.toString());
      } catch {
        message = undefined;
      }
      const request = isPlainObject(message) ? message : {};
      const { id, method, path, body, raw } = request;
      if (
        typeof id !== 'number' ||
        (method !== 'GET' && method !== 'POST') ||
        typeof path !== 'string' ||
        !path.startsWith('/v1/')
      ) {
        socket.close(1008, 'not a control request');
        return;
      }
      inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
      const url = new URL(path, 'http://127.0.0.1');
      const json = async () => {
        if (body === undefined) return {};
        if (!isPlainObject(body)) {
          throw new ControlError(400, 'bad_request', 'The body is not an object.');
        }
        return body;
      };
      const asker = new AbortController();
      askers.add(asker);
      const progress = (report: object) => {
        if (socket.readyState === socket.OPEN)
          socket.send(JSON.stringify({ id, progress: report }));
      };
      options.handle(method, url, json, { signal: asker.signal, progress }).then(
        ([status, answer]) => reply(status, answer),
        (error: unknown) =>
          reply(error instanceof ControlError ? error.status : 500, {
            ok: false,
            error: errorBody(error),
          }),
      );
      function reply(status: number, answer: object) {
        askers.delete(asker);
        inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1);
        if (socket.readyState === socket.OPEN) socket.send(answerText(status, answer));
        settle(socket);
      }
      function answerText(status: number, answer: object): string {
        const payload = (answer as { ok?: unknown; result?: unknown }).result;
        if (
          raw !== true ||
          url.pathname !== '/v1/call' ||
          (answer as { ok?: unknown }).ok !== true ||
          !isPlainObject(payload)
        ) {
          return JSON.stringify({ id, status, answer });
        }
        const { result: value, ...fields } = payload;
        const head = JSON.stringify({ id, status, answer: { ...answer, result: fields }, raw });
        return `${head}\n${JSON.stringify(value ?? null)}`;
      }
    });
  };

  server.on('upgrade', (request: IncomingMessage, stream: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const refuse = (status: number, body: object) => {
      const text = JSON.stringify(body);
      stream.end(
        `HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Refused'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    };
    stream.on('error', () => stream.destroy());
    try {
      options.check(request, url);
      if (url.pathname !== '/v1/channel' || options.closing()) {
        throw new ControlError(404, 'not_found', `No upgrade at ${url.pathname}.`);
      }
    } catch (error) {
      const status = error instanceof ControlError ? error.status : 500;
      refuse(status, { ok: false, error: errorBody(error) });
      return;
    }
    wss.handleUpgrade(request, stream, head, serve);
  });

  return {
    close(graceMs) {
      for (const socket of inFlight.keys()) settle(socket);
      const cut = setTimeout(() => {
        for (const socket of inFlight.keys()) socket.terminate();
      }, graceMs);
      cut.unref?.();
    },
  };
}
