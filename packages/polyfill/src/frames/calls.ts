/**
 * Calls across frames: made here (down a handle's route, or up through the top for
 * document.modelContext), served here for a caller in another frame, or passed one hop on.
 * Aborts follow a call's route; a frame that leaves (pagehide -> bye) fails the calls routed
 * through it and cancels the calls it made. No deadline bounds a tool's execution.
 *
 * Progress (a generic call whose caller gave onProgress: the request says `progress: true`)
 * goes back up the route: the frame that runs the tool posts each report on the link the call
 * came from, a frame it passes through relays only what comes up the link it sent that call
 * down, and the caller takes only reports for a call of its own that is pending, from the link
 * it went down, and checks each again (progress.ts): a frame's reports are untrusted input.
 */
import { domException } from '../lib/dom.js';
import { progressReporter } from '../progress.js';
import type { Tool } from '../tool.js';
import type { CallEncoding, ToolProgress } from '../types.js';
import type { NodeContext } from './context.js';
import type { RemoteHandles } from './handles.js';
import type { FrameLink } from './link.js';
import { visible } from './listing.js';
import type { CallRequest, FrameRequest, ProgressNotice } from './messages.js';
import { routeFrom } from './route.js';

type TreeCallRequest = Extract<FrameRequest, { op: 'tree-call' }>;

export class Calls {
  #node: NodeContext;
  #handles: RemoteHandles;
  /** Calls running here for remote callers: callId -> their AbortController. */
  #inbound = new Map<string, { controller: AbortController; link: FrameLink }>();
  /** Calls passing through: callId -> the link they went down, and where their progress goes up. */
  #forwarded = new Map<string, { down: FrameLink; up: FrameLink | undefined }>();
  /** Calls made here whose caller listens for progress: callId -> the link they went down. */
  #listening = new Map<
    string,
    { link: FrameLink; report: (progress: unknown, total?: unknown, message?: unknown) => void }
  >();

  constructor(node: NodeContext, handles: RemoteHandles) {
    this.#node = node;
    this.#handles = handles;
  }

  // ---- calls made here ------------------------------------------------------------------------

  /** Calls a remote tool by its handle, or by name under a route (tools.of(frame).callTool). */
  callRemote(
    target: Tool | { route: number[]; name: string },
    input: unknown,
    options: {
      signal?: AbortSignal;
      encoding?: CallEncoding;
      onProgress?: ((progress: ToolProgress) => void) | undefined;
    },
  ): Promise<unknown> {
    // tools.callTool checked this already; tools.of(frame).callTool comes straight here.
    if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
      return Promise.reject(new TypeError('onProgress must be a function.'));
    const ref =
      this.#handles.refOf(target as Tool) ??
      ('route' in target ? { ...target, key: -1 } : undefined);
    if (!ref) return Promise.reject(domException('NotFoundError', 'Unknown tool handle.'));
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
        ...(options.onProgress ? { progress: true } : {}),
      },
      options.signal,
      options.onProgress,
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
        return Promise.reject(domException('UnknownError', 'The tool is not in this page.'));
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
      return Promise.reject(domException('UnknownError', 'The tool is not in this page.'));
    return this.#send(parent, { ...request, op: 'tree-call', route }, signal);
  }

  #callDown(
    request: CallRequest,
    signal: AbortSignal | undefined,
    onProgress?: (progress: ToolProgress) => void,
  ): Promise<unknown> {
    const [first, ...rest] = request.route;
    const link = first === undefined ? undefined : this.#node.links.childAt(first);
    if (!link)
      return Promise.reject(
        domException('NotFoundError', 'The frame that owned this tool is gone.'),
      );
    return this.#send(link, { ...request, route: rest }, signal, onProgress);
  }

  /**
   * Sends a call over a link; the caller's abort rejects at once and travels down the route.
   * With `onProgress`, the call's reports are taken from that link until the call ends.
   */
  #send(
    link: FrameLink,
    request: FrameRequest & { callId: string },
    signal: AbortSignal | undefined,
    onProgress?: (progress: ToolProgress) => void,
  ): Promise<unknown> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Without a signal or a listener there is nothing to follow: the link's promise is the call's.
    if (!signal && !onProgress) return link.request(request);
    const { callId } = request;
    let ended = false;
    if (onProgress)
      this.#listening.set(callId, { link, report: progressReporter(onProgress, () => ended) });
    return new Promise((resolve, reject) => {
      const end = () => {
        ended = true;
        this.#listening.delete(callId);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        end();
        reject(signal?.reason);
        link.abort(callId);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      link.request(request).then(
        (value) => {
          end();
          resolve(value);
        },
        (error) => {
          end();
          reject(error);
        },
      );
    });
  }

  /**
   * A progress report that came up `link`: for a call of ours that is pending and went down
   * that link, to its caller; for a call passing through that went down that link and asked
   * for progress, one hop further up. Anything else is dropped.
   */
  progress(notice: ProgressNotice, link: FrameLink): void {
    const own = this.#listening.get(notice.callId);
    if (own) {
      if (own.link === link) own.report(notice.progress, notice.total, notice.message);
      return;
    }
    const passing = this.#forwarded.get(notice.callId);
    if (passing?.down === link) passing.up?.progress(notice);
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
      throw domException('UnknownError', 'This frame may not use tools.');
    }
    const parent = node.links.parent;
    if (parent) return this.#relay(parent, { ...request, via }, request.callId, undefined);
    // The top: the route starts here.
    return this.#serveCall({ ...request, op: 'call' }, via, from);
  }

  /** An abort for a call running here or passing through. */
  abort(callId: string): void {
    this.#inbound.get(callId)?.controller.abort();
    this.#forwarded.get(callId)?.down.abort(callId);
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
        );
      // Progress, when asked for, comes back up the link the call came from.
      return this.#relay(
        child,
        { ...request, route: rest, via },
        request.callId,
        request.progress === true && !spec ? from : undefined,
      );
    }
    const entry = node.deps.registry.get(request.name);
    const gone = () =>
      domException(
        spec ? 'UnknownError' : 'NotFoundError',
        `No tool named "${request.name}" is available here.`,
      );
    if (!entry || (request.key !== -1 && entry.key !== request.key)) throw gone();
    if (!visible(entry, request.caller, via, spec, null)) throw gone();
    if (spec && (entry.origin !== request.origin || node.gate.allowed !== true)) throw gone();
    const controller = new AbortController();
    this.#inbound.set(request.callId, { controller, link: from });
    const { callId } = request;
    try {
      return spec
        ? await node.deps.runSpec(entry, request.input, controller.signal, request.caller)
        : await node.deps.runGeneric(
            entry,
            request.input,
            request.encoding,
            controller.signal,
            request.caller,
            // The registry checked the report and stops them once the call ends (progress.ts).
            request.progress === true
              ? (report) => from.progress({ callId, ...report })
              : undefined,
          );
    } finally {
      this.#inbound.delete(request.callId);
    }
  }

  /**
   * Passes a call one hop further, remembering where its abort must follow, and `up`, where
   * its progress goes (undefined: the caller did not ask).
   */
  async #relay(
    to: FrameLink,
    request: FrameRequest,
    callId: string,
    up: FrameLink | undefined,
  ): Promise<unknown> {
    this.#forwarded.set(callId, { down: to, up });
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
