/**
 * Calls across frames: made here (down a handle's route, or up through the top for
 * document.modelContext), served here for a caller in another frame, or passed one hop on.
 * Aborts follow a call's route; a frame that leaves (pagehide -> bye) fails the calls routed
 * through it and cancels the calls it made. No deadline bounds a tool's execution.
 */
import { domException } from '../lib/dom.js';
import type { Tool } from '../tool.js';
import type { CallEncoding } from '../types.js';
import type { NodeContext } from './context.js';
import type { RemoteHandles } from './handles.js';
import type { FrameLink } from './link.js';
import { visible } from './listing.js';
import type { CallRequest, FrameRequest } from './messages.js';
import { routeFrom } from './route.js';

type TreeCallRequest = Extract<FrameRequest, { op: 'tree-call' }>;

const NOT_FOUND = 'tool_not_found';

export class Calls {
  #node: NodeContext;
  #handles: RemoteHandles;
  /** Calls running here for remote callers: callId -> their AbortController. */
  #inbound = new Map<string, { controller: AbortController; link: FrameLink }>();
  /** Calls passing through: callId -> the link they went down. */
  #forwarded = new Map<string, FrameLink>();

  constructor(node: NodeContext, handles: RemoteHandles) {
    this.#node = node;
    this.#handles = handles;
  }

  // ---- calls made here ------------------------------------------------------------------------

  /** Calls a remote tool by its handle, or by name under a route (tools.of(frame).callTool). */
  callRemote(
    target: Tool | { route: number[]; name: string },
    input: unknown,
    options: { signal?: AbortSignal; encoding?: CallEncoding },
  ): Promise<unknown> {
    const ref =
      this.#handles.refOf(target as Tool) ??
      ('route' in target ? { ...target, key: -1 } : undefined);
    if (!ref)
      return Promise.reject(domException('NotFoundError', 'Unknown tool handle.', NOT_FOUND));
    return this.#callDown(
      {
        op: 'call',
        route: ref.route,
        caller: this.#node.origin,
        via: [],
        callId: newCallId(),
        name: ref.name,
        key: ref.key,
        origin: null,
        input,
        encoding: options.encoding ?? 'structured',
      },
      options.signal,
    );
  }

  /** document.modelContext.executeTool of a tool in another frame: routed through the top. */
  callSpec(
    window: Window,
    name: string,
    origin: string,
    input: unknown,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const node = this.#node;
    const request: Omit<CallRequest, 'op' | 'route'> = {
      caller: node.origin,
      via: [],
      callId: newCallId(),
      name,
      key: -1,
      origin,
      input,
      encoding: 'json',
    };
    const win = node.window;
    if (win.parent === win || !win.parent) {
      const route = routeFrom(win, window);
      if (!route || route.length === 0)
        return Promise.reject(
          domException('UnknownError', 'The tool is not in this page.', NOT_FOUND),
        );
      return this.#callDown({ ...request, op: 'call', route }, signal);
    }
    // From a descendant: the top knows every route; compute ours from the top's point of view.
    const top = win.top as Window;
    let route: number[] | undefined;
    try {
      route = routeFrom(top, window);
    } catch {
      route = undefined;
    }
    const parent = node.links.parent;
    if (!route || !parent)
      return Promise.reject(
        domException('UnknownError', 'The tool is not in this page.', NOT_FOUND),
      );
    return this.#send(parent, { ...request, op: 'tree-call', route }, signal);
  }

  #callDown(request: CallRequest, signal: AbortSignal | undefined): Promise<unknown> {
    const [first, ...rest] = request.route;
    const link = first === undefined ? undefined : this.#node.links.childAt(first);
    if (!link)
      return Promise.reject(
        domException('NotFoundError', 'The frame that owned this tool is gone.', NOT_FOUND),
      );
    return this.#send(link, { ...request, route: rest }, signal);
  }

  /** Sends a call over a link; the caller's abort rejects at once and travels down the route. */
  #send(
    link: FrameLink,
    request: FrameRequest & { callId: string },
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Without a signal there is nothing to follow: the link's own promise is the call's.
    if (!signal) return link.request(request);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        reject(signal?.reason);
        link.abort(request.callId);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      link.request(request).then(
        (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  // ---- calls from other frames ----------------------------------------------------------------

  /** A `call` from the parent (calls come down only): run here, or passed down its route. */
  answerCall(request: CallRequest, via: string[], from: FrameLink): Promise<unknown> {
    return this.#serveCall(request, via, from);
  }

  /** A document.modelContext call from a child: up to the top, where its route starts. */
  answerTreeCall(request: TreeCallRequest, via: string[], from: FrameLink): Promise<unknown> {
    const node = this.#node;
    // document.modelContext only (an honest frame always names the owner's origin): the
    // generic layer has no upward calls.
    if (request.origin === null || node.gate.allowed !== true || !from.allowed) {
      throw domException('UnknownError', 'This frame may not use tools.', 'tool_execution_denied');
    }
    const parent = node.links.parent;
    if (parent) return this.#relay(parent, { ...request, via }, request.callId);
    // The top: the route starts here.
    return this.#serveCall({ ...request, op: 'call' }, via, from);
  }

  /** An abort for a call running here or passing through. */
  abort(callId: string): void {
    this.#inbound.get(callId)?.controller.abort();
    this.#forwarded.get(callId)?.abort(callId);
  }

  /** A link closed: the calls its side made here are cancelled. */
  dropLink(link: FrameLink): void {
    for (const [callId, call] of this.#inbound) {
      if (call.link === link) {
        call.controller.abort();
        this.#inbound.delete(callId);
      }
    }
  }

  async #serveCall(request: CallRequest, via: string[], from: FrameLink): Promise<unknown> {
    const node = this.#node;
    const spec = request.origin !== null;
    if (request.route.length > 0) {
      const [first, ...rest] = request.route as [number, ...number[]];
      const child = node.links.childAt(first);
      if (!child)
        throw domException(
          spec ? 'UnknownError' : 'NotFoundError',
          'The frame that owned this tool is gone.',
          NOT_FOUND,
        );
      return this.#relay(child, { ...request, route: rest, via }, request.callId);
    }
    const entry = node.deps.registry.get(request.name);
    const gone = () =>
      domException(
        spec ? 'UnknownError' : 'NotFoundError',
        `No tool named "${request.name}" is available here.`,
        NOT_FOUND,
      );
    if (!entry || (request.key !== -1 && entry.key !== request.key)) throw gone();
    if (!visible(entry, request.caller, via, spec, null)) throw gone();
    if (spec && (entry.origin !== request.origin || node.gate.allowed !== true)) throw gone();
    const controller = new AbortController();
    this.#inbound.set(request.callId, { controller, link: from });
    try {
      return spec
        ? await node.deps.runSpec(entry, request.input, controller.signal, request.caller)
        : await node.deps.runGeneric(
            entry,
            request.input,
            request.encoding,
            controller.signal,
            request.caller,
          );
    } finally {
      this.#inbound.delete(request.callId);
    }
  }

  /** Passes a call one hop further, remembering where its abort must follow. */
  async #relay(to: FrameLink, request: FrameRequest, callId: string): Promise<unknown> {
    this.#forwarded.set(callId, to);
    try {
      return await to.request(request);
    } finally {
      this.#forwarded.delete(callId);
    }
  }
}

let callCounter = 0;
function newCallId(): string {
  callCounter = (callCounter + 1) % Number.MAX_SAFE_INTEGER;
  const random =
    typeof crypto !== 'undefined' && 'randomUUID' in crypto
      ? crypto.randomUUID()
      : String(Math.random());
  return `${random}:${callCounter}`;
}
