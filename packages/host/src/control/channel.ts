/**
 * The client end of the control API's channel (channel-server.ts): what `toolwire mcp --attach`
 * asks through, many requests in flight on one WebSocket. The one-shot CLI commands keep plain
 * requests (client.ts): for one request a channel costs an upgrade more.
 *
 * 1. Opened on the first request, with the control secret; reopened on the next request after
 *    it closes.
 * 2. Answers read as client.ts reads an HTTP answer: `{ok: true}` resolves, anything else is
 *    the same ControlFailure.
 * 3. Failures keep client.ts's kinds: no connection is `unreachable`; a channel that closes with
 *    requests in flight fails each of them at once as `cut` (a call's outcome is unknown).
 *    Nothing is resent.
 * 4. A host that answers the upgrade with anything but a channel (one older than the channel, a
 *    refusal) is asked over plain requests from then on, which say why it refused.
 * 5. Aborting a call or batch in flight (`signal`) rejects it at once and asks the host to cancel
 *    it at the page: the call carries a cancel key, and `POST /v1/cancel` names it over the
 *    channel. A host that does not know the route answers 404, which changes nothing.
 * 6. `onProgress` asks for a call's progress; the `{id, progress}` messages for it go there.
 * 7. `rawResult` asks for a call's answer with its result value as JSON text after the message
 *    (channel-server.ts 7): the value is not parsed here, and a bridge that only forwards it
 *    forwards that text (mcp/content.ts). A host that does not know the flag answers as usual.
 */
import { isPlainObject } from '@toolwire/protocol';
import { WebSocket } from 'ws';
import { errnoText } from '../shared/errors.js';
import { increasing } from '../shared/progress.js';
import { withRawResult } from '../shared/raw-json.js';
import type { ControlAnswer, ControlRequestOptions, ControlTarget } from './client.js';
import { actsOnPage, ControlFailure, newCancelKey, readAnswer, sendControl } from './client.js';

/** Far above the API's own 16 MiB request limit: answers (a batch's results) may be larger. */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

const zeroMask = (mask: Buffer) => {
  mask.fill(0);
};

export interface ControlChannel {
  /** As sendControl: the `{ok: true}` answer, or a ControlFailure, or the abort reason. */
  request(path: string, body?: object, options?: ControlRequestOptions): Promise<ControlAnswer>;
  close(): void;
}

interface Pending {
  resolve(answer: ControlAnswer): void;
  reject(error: unknown): void;
  /** Its progress reports, read as untrusted. */
  progress: ((value: unknown) => void) | undefined;
}

export function controlChannel(target: ControlTarget): ControlChannel {
  /** The open channel; null when the host has none. */
  let channel: Promise<{ socket: WebSocket; pending: Map<number, Pending> } | null> | undefined;
  let nextId = 0;
  let closed = false;

  const open = () => {
    const url = new URL('/v1/channel', target.url);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const pending = new Map<number, Pending>();
    const opening = new Promise<{ socket: WebSocket; pending: Map<number, Pending> } | null>(
      (resolve, reject) => {
        const socket = new WebSocket(url, {
          headers: { Authorization: `Bearer ${target.token}` },
          perMessageDeflate: false,
          maxPayload: MAX_ANSWER_BYTES,
          // A zero masking key: neither end XORs the frame (in ws, JavaScript, about 2.5 ms a
          // MiB each way). Masking keeps a page's script from steering what a proxy between
          // browser and server reads; this is a Node process on loopback, with the secret.
          generateMask: zeroMask,
        });
        let opened = false;
        socket.once('open', () => {
          opened = true;
          resolve({ socket, pending });
        });
        socket.once('unexpected-response', (request, response) => {
          response.resume();
          request.destroy();
          resolve(null);
        });
        socket.on('error', (error) => {
          if (!opened) {
            reject(
              new ControlFailure('unreachable', `no toolwire host answers at ${target.url}`, {
                reason: errnoText(error),
              }),
            );
          }
        });
        socket.on('message', (data) => {
          let message: {
            id?: unknown;
            status?: unknown;
            answer?: unknown;
            progress?: unknown;
            raw?: unknown;
          } = {};
          const text = data.toString();
          // JSON never holds a bare line break: one ends the message before a raw result.
          const cut = text.indexOf('\n');
          try {
            message = JSON.parse(cut === -1 ? text : text.slice(0, cut));
          } catch {}
          if (cut !== -1 && message.raw === true && isPlainObject(message.answer)) {
            const answer = message.answer;
            if (isPlainObject(answer.result)) {
              answer.result = withRawResult(answer.result, text.slice(cut + 1));
            }
          }
          const waiting = pending.get(message.id as number);
          if (!waiting) return;
          if (message.progress !== undefined && message.answer === undefined) {
            waiting.progress?.(message.progress);
            return;
          }
          pending.delete(message.id as number);
          try {
            waiting.resolve(readAnswer(target, Number(message.status), message.answer));
          } catch (error) {
            waiting.reject(error);
          }
        });
        socket.once('close', (code, why) => {
          if (channel === opening) channel = undefined; // the next one reopens
          const reason = why.toString() || `closed ${code}`;
          for (const waiting of pending.values()) {
            waiting.reject(
              new ControlFailure(
                'cut',
                `the host at ${target.url} closed the connection (${reason})`,
                { reason },
              ),
            );
          }
          pending.clear();
        });
      },
    );
    opening.catch(() => {
      if (channel === opening) channel = undefined;
    });
    return opening;
  };

  return {
    async request(path, body, options = {}) {
      const { signal, onProgress, rawResult } = options;
      if (signal?.aborted) throw signal.reason;
      if (closed) throw new ControlFailure('unreachable', 'the control channel is closed');
      channel ??= open();
      const open_ = await channel;
      if (open_ === null) return sendControl(target, path, body, options);
      const { socket, pending } = open_;
      const id = ++nextId;
      // A call that can be aborted carries the key that cancels it.
      const cancelKey = signal && body && actsOnPage(path) ? newCancelKey() : undefined;
      const sent = {
        ...body,
        ...(cancelKey ? { cancelKey } : {}),
        ...(onProgress && body ? { progress: true } : {}),
      };
      return new Promise<ControlAnswer>((resolve, reject) => {
        const abort = () => {
          pending.delete(id); // the answer, if it comes, is dropped
          if (cancelKey && socket.readyState === socket.OPEN) {
            socket.send(
              JSON.stringify({
                id: ++nextId,
                method: 'POST',
                path: '/v1/cancel',
                body: { cancelKey },
              }),
            );
          }
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', abort, { once: true });
        const settle = () => signal?.removeEventListener('abort', abort);
        pending.set(id, {
          resolve: (answer) => {
            settle();
            resolve(answer);
          },
          reject: (error) => {
            settle();
            reject(error);
          },
          progress: onProgress ? increasing(onProgress) : undefined,
        });
        const message = JSON.stringify({
          id,
          method: body === undefined ? 'GET' : 'POST',
          path,
          ...(body === undefined ? {} : { body: sent }),
          ...(rawResult ? { raw: true } : {}),
        });
        socket.send(message, (error) => {
          if (!error || !pending.has(id)) return;
          pending.delete(id);
          settle();
          // Not written: the host cannot have acted on it, but the channel is broken.
          reject(
            new ControlFailure('cut', `the host at ${target.url} closed the connection`, {
              reason: errnoText(error),
            }),
          );
        });
      });
    },
    close() {
      closed = true;
      void channel?.then((open_) => open_?.socket.close(1000, 'done')).catch(() => undefined);
    },
  };
}
