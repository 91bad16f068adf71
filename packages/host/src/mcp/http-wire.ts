/**
 * `/mcp` keep-alive connections read and answered on their sockets, for the hot request shape
 * (http-fast.ts), without node:http's request and response objects (some 50-100 us a call on
 * this box, most of what HTTP cost over stdio). Everything else on such a connection still goes
 * through node:http, byte for byte, and every other connection is node:http's from its start.
 *
 * 1. A connection is taken only when its first bytes are `POST /mcp ` (an MCP client's
 *    request); any other (a page's WebSocket upgrade, a GET stream, anything at all) is handed
 *    to node:http as it came, with the bytes read so far put back: from then on it is exactly a
 *    node:http connection.
 * 2. On a taken connection requests are read one at a time, in order. A request whose framing
 *    this reader does not handle (Transfer-Encoding, Upgrade, Expect, obs-fold, a malformed or
 *    duplicated Content-Length, a body over the host's limit, a head over 16 KiB, not HTTP/1.1,
 *    a method other than the usual ones) hands the rest of the connection to node:http for
 *    good: it answers and refuses as it does for any connection.
 * 3. A complete request is offered to `take` (http.ts: the same Host, Origin and secret checks,
 *    a session this host holds, the hot shape). Taken, it is answered here (WireAnswer writes
 *    what node:http would: the same status line and headers, Date last, the same framing). Not
 *    taken, the request's bytes alone are handed to node:http on an in-process socket
 *    (RelaySocket), and when that answer is finished, the connection is read here again; an
 *    answer that closed its connection closes this one.
 * 4. Idle like node:http: a taken connection with nothing in flight is closed after the
 *    server's `keepAliveTimeout`; one holding a partial request by then goes to node:http,
 *    whose header and request timeouts apply from there. Bytes a client sends ahead while a
 *    request is in flight are kept (at most MAX_AHEAD, then the socket is paused), in order.
 * 5. The client going away before its answer ends is that answer's 'close' without
 *    `writableFinished`, as a ServerResponse's is: http-fast.ts cancels the call on it. So is
 *    a client half-closing, as node:http's server (no half-open HTTP) abandons its request.
 *    A failure inside `take` is logged and closes that connection only.
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';

/** What a taken request is answered through: the part of ServerResponse http-fast.ts uses. */
export interface AnswerSink {
  writeHead(status: number, headers: string[]): unknown;
  flushHeaders(): void;
  write(text: string): unknown;
  end(text?: string): unknown;
  once(event: 'close', listener: () => void): unknown;
  readonly writableFinished: boolean;
}

export interface WireOptions {
  /**
   * Answers one complete `POST /mcp` (its headers, lowercase, and its body) on the hot path
   * through `sink`, or says false (the request goes to node:http).
   */
  take(headers: IncomingHttpHeaders, body: string, sink: AnswerSink): boolean;
  /** Largest request body read here (larger ones go to node:http, which refuses them). */
  maxBodyBytes: number;
  /** Where a failure in answering a request is told (its connection is then closed). */
  log?: (line: string) => void;
}

export interface McpWire {
  /** Connections read here now. */
  readonly connections: number;
  /** Requests answered here so far. */
  readonly answered: number;
  /** Requests handed to node:http from taken connections so far. */
  readonly relayed: number;
  /** Closes every connection read here, and node:http has the server's connections again. */
  close(): void;
}

const PREFIX = Buffer.from('POST /mcp ', 'latin1');
/** node:http's default largest head. */
const MAX_HEAD = 16 * 1024;
/** Bytes kept beyond the request in flight before the socket is paused. */
const MAX_AHEAD = 64 * 1024;
/** A connection that has not sent its first bytes by then goes to node:http. */
const SNIFF_MS = 5_000;
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const METHODS = new Set(['GET', 'POST', 'DELETE', 'HEAD', 'OPTIONS', 'PUT', 'PATCH']);
const REQUEST_LINE = /^([A-Z]+) ([^\s]+) HTTP\/1\.1$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

interface Head {
  method: string;
  target: string;
  headers: IncomingHttpHeaders & Record<string, string>;
  /** A header name came twice. */
  repeated: boolean;
  /** The body's length (Content-Length, else 0). */
  length: number;
}

/** `text` from `start` to `end` without the spaces and tabs at either end (as llhttp trims). */
function trimmed(text: string, start: number, end: number): string {
  while (start < end && (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 9)) start++;
  while (end > start && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 9)) end--;
  return text.slice(start, end);
}

/** The request head `text` (without its blank line), or undefined when node:http should read it. */
function parseHead(text: string, maxBody: number): Head | undefined {
  let lineEnd = text.indexOf('\r\n');
  const line = REQUEST_LINE.exec(lineEnd < 0 ? text : text.slice(0, lineEnd));
  if (!line || !METHODS.has(line[1] as string)) return undefined;
  const headers: Record<string, string> = {};
  let repeated = false;
  while (lineEnd >= 0) {
    const start = lineEnd + 2;
    lineEnd = text.indexOf('\r\n', start);
    const end = lineEnd < 0 ? text.length : lineEnd;
    const colon = text.indexOf(':', start);
    // A line without a name (obs-fold, a bare line), or a bad name or value.
    if (colon <= start || colon >= end) return undefined;
    const rawName = text.slice(start, colon);
    if (!HEADER_NAME.test(rawName) || BAD_VALUE.test(text.slice(colon + 1, end))) return undefined;
    const name = rawName.toLowerCase();
    if (!(name in headers)) headers[name] = trimmed(text, colon + 1, end);
    else if (name === 'content-length') return undefined;
    else repeated = true;
  }
  if ('transfer-encoding' in headers || 'upgrade' in headers || 'expect' in headers) {
    return undefined;
  }
  const declared = headers['content-length'];
  let length = 0;
  if (declared !== undefined) {
    if (!/^\d{1,15}$/.test(declared)) return undefined;
    length = Number(declared);
    if (length > maxBody) return undefined;
  }
  return { method: line[1] as string, target: line[2] as string, headers, repeated, length };
}

/** node:http's Date header value, made once a second. */
let dateSecond = -1;
let dateText = '';
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

/** A taken request's answer, written on the socket as node:http writes a ServerResponse. */
class WireAnswer implements AnswerSink {
  writableFinished = false;
  readonly #connection: WireConnection;
  /** The head, until it is written. */
  #head = '';
  #chunked = false;
  #closed = false;
  #listeners: (() => void)[] = [];

  constructor(connection: WireConnection) {
    this.#connection = connection;
  }

  writeHead(status: number, headers: string[]): this {
    let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'unknown'}\r\n`;
    let length = false;
    for (let i = 0; i < headers.length; i += 2) {
      const name = headers[i] as string;
      if (name.length === 14 && name.toLowerCase() === 'content-length') length = true;
      head += `${name}: ${headers[i + 1] as string}\r\n`;
    }
    head += `Date: ${httpDate()}\r\n`;
    if (!length) head += 'Transfer-Encoding: chunked\r\n';
    this.#head = `${head}\r\n`;
    this.#chunked = !length;
    return this;
  }

  flushHeaders(): void {
    if (this.#head === '') return;
    this.#connection.send(this.#head);
    this.#head = '';
  }

  write(text: string): boolean {
    if (this.writableFinished || text === '') return true;
    this.#connection.send(this.#head + (this.#chunked ? chunk(text) : text));
    this.#head = '';
    return true;
  }

  end(text = ''): this {
    if (this.writableFinished) return this;
    const body = this.#chunked ? `${text === '' ? '' : chunk(text)}0\r\n\r\n` : text;
    this.#connection.send(this.#head + body);
    this.#head = '';
    this.writableFinished = true;
    this.#connection.answered();
    // After the caller's own code, as a ServerResponse's 'close' comes after its 'finish'.
    queueMicrotask(() => this.gone());
    return this;
  }

  once(_event: 'close', listener: () => void): this {
    if (this.#closed) queueMicrotask(listener);
    else this.#listeners.push(listener);
    return this;
  }

  /** The answer ended, or its socket closed first: 'close', once. */
  gone(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const listener of this.#listeners.splice(0)) listener();
  }
}

/**
 * The socket node:http reads a handed-on request from: the request's bytes in, its answer
 * written straight to the real socket. Released (the answer done, the connection read here
 * again), it forgets the real socket: what node:http does with it afterwards reaches nobody.
 */
class RelaySocket extends Duplex {
  readonly owner: WireConnection;
  #real: Socket | undefined;

  constructor(owner: WireConnection, real: Socket) {
    super({ allowHalfOpen: true });
    this.owner = owner;
    this.#real = real;
  }

  get remoteAddress() {
    return this.#real?.remoteAddress;
  }
  get remotePort() {
    return this.#real?.remotePort;
  }
  get remoteFamily() {
    return this.#real?.remoteFamily;
  }
  get localAddress() {
    return this.#real?.localAddress;
  }
  get localPort() {
    return this.#real?.localPort;
  }
  // The taken connection keeps its own idle time; node:http's per-socket settings are moot.
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }

  /** Hands the connection back: node:http sees its socket end, and nothing reaches the real one. */
  release(): void {
    this.#real = undefined;
    this.push(null);
  }

  /** node:http wants more: a real socket paused for it reads again. */
  override _read(): void {
    if (this.#real?.isPaused()) this.#real.resume();
  }

  override _write(data: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    const real = this.#real;
    if (real === undefined || real.destroyed) done();
    else real.write(data, (error) => done(error ?? null));
  }

  override _final(done: (error?: Error | null) => void): void {
    if (this.#real !== undefined) this.owner.relayEnded(this);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    if (this.#real !== undefined) this.owner.relayDestroyed(this);
    done(error);
  }
}

type Mode = 'read' | 'answering' | 'relaying' | 'handed';

/** One taken connection (header 2-5). */
class WireConnection {
  readonly #wire: Wire;
  readonly #socket: Socket;
  #buffer: Buffer;
  #mode: Mode = 'read';
  #answer: WireAnswer | undefined;
  #relay: RelaySocket | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pumping = false;
  /** The client half-closed (a connection handed on later takes the end with it). */
  #ended = false;

  constructor(wire: Wire, socket: Socket, first: Buffer) {
    this.#wire = wire;
    this.#socket = socket;
    this.#buffer = first;
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('error', () => socket.destroy());
    socket.on('close', this.#onClose);
    const idle = wire.server.keepAliveTimeout;
    if (idle > 0) {
      this.#timer = setTimeout(this.#onIdle, idle);
      this.#timer.unref?.();
    }
    this.#pump();
  }

  close(): void {
    this.#socket.destroy();
  }

  send(text: string): void {
    if (this.#socket.writable) this.#socket.write(text);
  }

  /** The taken request's answer ended: read on (after the caller's code, not inside it). */
  answered(): void {
    this.#answer = undefined;
    this.#mode = 'read';
    this.#wire.answered++;
    this.#timer?.refresh();
    if (this.#buffer.length > 0) queueMicrotask(() => this.#pump());
  }

  /** node:http began answering the handed-on request on `relay`. */
  relayStarted(relay: RelaySocket, response: ServerResponse): void {
    if (relay !== this.#relay || this.#mode !== 'relaying') return;
    response.once('finish', () => {
      if (relay !== this.#relay) return;
      // node:http ended its socket after this answer (Connection: close): so does this one.
      if (relay.writableEnded || relay.destroyed) return;
      this.#relay = undefined;
      relay.release();
      this.#mode = 'read';
      this.#timer?.refresh();
      queueMicrotask(() => this.#pump());
    });
  }

  relayEnded(relay: RelaySocket): void {
    if (relay === this.#relay) this.#socket.end();
  }

  relayDestroyed(relay: RelaySocket): void {
    if (relay === this.#relay) this.#socket.destroy();
  }

  #onData = (data: Buffer): void => {
    if (this.#mode === 'handed') {
      // node:http not reading (a slow answer, a paused upgrade): the socket waits for it.
      if (this.#relay?.push(data) === false) this.#socket.pause();
      return;
    }
    this.#buffer = this.#buffer.length === 0 ? data : Buffer.concat([this.#buffer, data]);
    if (this.#mode === 'read') this.#pump();
    else if (this.#buffer.length > MAX_AHEAD) this.#socket.pause();
  };

  /**
   * The client half-closed. As node:http does (its server does not allow half-open HTTP): a
   * request in flight is abandoned (its 'close', so the call is cancelled) and the connection
   * ends; a partial request goes to node:http with the end, which answers it as it does.
   */
  #onEnd = (): void => {
    this.#ended = true;
    if (this.#mode === 'handed' || this.#mode === 'relaying') {
      this.#relay?.push(null);
      return;
    }
    if (this.#mode === 'read' && this.#buffer.length > 0) {
      this.#handOn();
      return;
    }
    const answer = this.#answer;
    this.#answer = undefined;
    this.#buffer = Buffer.alloc(0);
    this.#socket.end();
    answer?.gone();
  };

  #onClose = (): void => {
    clearTimeout(this.#timer);
    this.#wire.open.delete(this);
    this.#answer?.gone();
    this.#answer = undefined;
    const relay = this.#relay;
    this.#relay = undefined;
    relay?.destroy();
  };

  #onIdle = (): void => {
    if (this.#mode !== 'read') {
      this.#timer?.refresh();
      return;
    }
    if (this.#buffer.length === 0) this.#socket.destroy();
    else this.#handOn(); // a partial request: node:http's timeouts take it from here
  };

  /** Reads and answers complete requests while the connection is free. */
  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#mode === 'read' && !this.#socket.destroyed) {
        if (this.#socket.isPaused()) this.#socket.resume();
        const end = this.#buffer.indexOf(HEAD_END);
        if (end < 0) {
          if (this.#buffer.length > MAX_HEAD) this.#handOn();
          return;
        }
        if (end > MAX_HEAD) {
          this.#handOn();
          return;
        }
        const head = parseHead(this.#buffer.toString('latin1', 0, end), this.#wire.maxBodyBytes);
        if (!head) {
          this.#handOn();
          return;
        }
        const size = end + 4 + head.length;
        if (this.#buffer.length < size) return;
        const request = this.#buffer.subarray(0, size);
        this.#buffer = this.#buffer.subarray(size);
        if (this.#hot(head)) {
          const answer = new WireAnswer(this);
          this.#answer = answer;
          this.#mode = 'answering';
          const body = request.toString('utf8', end + 4);
          let taken: boolean;
          try {
            taken = this.#wire.take(head.headers, body, answer);
          } catch (error) {
            // As node:http's path fails a request it cannot answer: logged, connection closed.
            this.#wire.log?.(`mcp: ${(error as Error).message}`);
            this.#socket.destroy();
            return;
          }
          if (taken) continue;
          this.#answer = undefined;
          this.#mode = 'read';
        }
        this.#relayOne(request);
      }
    } finally {
      this.#pumping = false;
    }
  }

  /** Whether `head` may be the hot shape (http.ts decides). */
  #hot(head: Head): boolean {
    if (head.method !== 'POST' || head.target !== '/mcp' || head.repeated) return false;
    const connection = head.headers.connection;
    return connection === undefined || connection.toLowerCase() === 'keep-alive';
  }

  /** One request to node:http (header 3). */
  #relayOne(request: Buffer): void {
    const relay = new RelaySocket(this, this.#socket);
    this.#relay = relay;
    this.#mode = 'relaying';
    this.#wire.relayed++;
    this.#wire.toHttp(relay);
    relay.push(Buffer.from(request));
  }

  /** The rest of the connection to node:http, for good (header 2). */
  #handOn(): void {
    clearTimeout(this.#timer);
    const relay = new RelaySocket(this, this.#socket);
    this.#relay = relay;
    this.#mode = 'handed';
    this.#wire.toHttp(relay);
    const waiting = this.#buffer;
    this.#buffer = Buffer.alloc(0);
    const more = waiting.length === 0 || relay.push(waiting);
    if (this.#ended) relay.push(null);
    if (more && this.#socket.isPaused()) this.#socket.resume();
  }
}

class Wire implements McpWire {
  readonly server: Server;
  readonly take: WireOptions['take'];
  readonly maxBodyBytes: number;
  readonly log: ((line: string) => void) | undefined;
  readonly open = new Set<WireConnection>();
  /** Connections whose first bytes have not come yet. */
  readonly #sniffing = new Set<Socket>();
  answered = 0;
  relayed = 0;
  readonly #http: (socket: Duplex) => void;
  readonly #onConnection = (socket: Socket) => this.#sniff(socket);
  readonly #onRequest = (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket as unknown;
    if (socket instanceof RelaySocket) socket.owner.relayStarted(socket, response);
  };

  constructor(server: Server, http: (socket: Duplex) => void, options: WireOptions) {
    this.server = server;
    this.#http = http;
    this.take = options.take;
    this.maxBodyBytes = options.maxBodyBytes;
    this.log = options.log;
    server.removeListener('connection', http);
    server.on('connection', this.#onConnection);
    server.prependListener('request', this.#onRequest);
  }

  /** node:http reads `socket` from here on. */
  toHttp(socket: Duplex): void {
    this.#http.call(this.server, socket);
  }

  /** Reads a new connection's first bytes: taken, or node:http's as it came (header 1). */
  #sniff(socket: Socket): void {
    let seen: Buffer = Buffer.alloc(0);
    const decide = (take: boolean) => {
      clearTimeout(timer);
      this.#sniffing.delete(socket);
      socket.removeListener('data', onData);
      socket.removeListener('error', onError);
      socket.removeListener('end', onEnd);
      socket.removeListener('close', onClose);
      if (take) {
        this.open.add(new WireConnection(this, socket, seen));
        return;
      }
      socket.pause();
      if (seen.length > 0) socket.unshift(seen);
      this.toHttp(socket);
      socket.resume();
    };
    const onData = (data: Buffer) => {
      seen = seen.length === 0 ? data : Buffer.concat([seen, data]);
      const length = Math.min(seen.length, PREFIX.length);
      if (seen.compare(PREFIX, 0, length, 0, length) !== 0) decide(false);
      else if (seen.length >= PREFIX.length) decide(true);
    };
    const onError = () => socket.destroy();
    // Ended or gone before its first 10 bytes: nothing to answer.
    const onEnd = () => socket.destroy();
    const onClose = () => {
      clearTimeout(timer);
      this.#sniffing.delete(socket);
    };
    const timer = setTimeout(() => decide(false), SNIFF_MS);
    timer.unref?.();
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('end', onEnd);
    socket.on('close', onClose);
    this.#sniffing.add(socket);
  }

  close(): void {
    this.server.removeListener('connection', this.#onConnection);
    this.server.removeListener('request', this.#onRequest);
    this.server.on('connection', this.#http);
    for (const connection of this.open) connection.close();
    this.open.clear();
    for (const socket of this.#sniffing) socket.destroy();
    this.#sniffing.clear();
  }

  get connections(): number {
    return this.open.size;
  }
}

/**
 * Reads `server`'s `/mcp` keep-alive connections itself (header), in place of node:http's own
 * connection listener; `close()` puts that back. Undefined when `server` does not have exactly
 * one 'connection' listener (node:http's), which it then leaves alone.
 */
export function attachMcpWire(server: Server, options: WireOptions): McpWire | undefined {
  const listeners = server.listeners('connection');
  if (listeners.length !== 1) return undefined;
  return new Wire(server, listeners[0] as (socket: Duplex) => void, options);
}
