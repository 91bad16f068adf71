/**
 * An MCP Streamable HTTP client as lean as a line client on a child's pipes: HTTP/1.1 written
 * and read by hand on one keep-alive `net.Socket`, one request at a time. No node:http
 * (`ClientRequest`, `Agent`, `IncomingMessage`, llhttp): the bench's target row measures the
 * server's path, not a client library.
 *
 * A request goes out as one string. The answer is read by a small parser: the status line,
 * the headers, then a Content-Length body, a chunked body, or none (a 202 or a 204). An SSE
 * body (`event: message` frames) may carry progress and other messages before the answer: the
 * answer is the frame whose id is the request's. A status other than 200 or 202, or an answer
 * with another id, fails the call with an `McpSocketError` naming what came.
 */
import { connect, type Socket } from 'node:net';

export class McpSocketError extends Error {
  constructor(
    readonly code:
      | 'mcp_socket_status'
      | 'mcp_socket_framing'
      | 'mcp_socket_no_answer'
      | 'mcp_socket_closed',
    message: string,
    readonly status?: number,
    readonly body?: string,
  ) {
    super(message);
    this.name = 'McpSocketError';
  }
}

/** One HTTP response as it came. */
export interface RawResponse {
  status: number;
  /** Lowercase names; a repeated header keeps its last value. */
  headers: Map<string, string>;
  body: string;
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * Reads HTTP/1.1 responses from the bytes given to `push`, one after another, and hands each
 * one whole to `onResponse`.
 */
export class ResponseReader {
  #buffer: Buffer = Buffer.alloc(0);
  #head: { status: number; headers: Map<string, string> } | undefined;
  /** Chunked: the body parts so far. */
  #parts: Buffer[] = [];
  constructor(
    private readonly onResponse: (response: RawResponse) => void,
    private readonly onError: (error: McpSocketError) => void,
  ) {}

  push(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    try {
      while (this.#step());
    } catch (error) {
      this.#buffer = Buffer.alloc(0);
      this.#head = undefined;
      this.onError(error as McpSocketError);
    }
  }

  /** Takes what it can from the buffer; true when it made progress and may go on. */
  #step(): boolean {
    if (!this.#head) {
      const end = this.#buffer.indexOf(HEAD_END);
      if (end < 0) return false;
      const lines = this.#buffer.toString('latin1', 0, end).split('\r\n');
      this.#buffer = this.#buffer.subarray(end + 4);
      const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0] ?? '');
      if (!status) throw framing(`not an HTTP/1.1 status line: ${JSON.stringify(lines[0])}`);
      const headers = new Map<string, string>();
      for (let i = 1; i < lines.length; i++) {
        const line = lines[i] as string;
        const colon = line.indexOf(':');
        if (colon <= 0) throw framing(`a header line without a name: ${JSON.stringify(line)}`);
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      this.#head = { status: Number(status[1]), headers };
      this.#parts = [];
    }
    const { status, headers } = this.#head;
    if (headers.get('transfer-encoding')?.toLowerCase() === 'chunked') {
      const lineEnd = this.#buffer.indexOf(CRLF);
      if (lineEnd < 0) return false;
      const sizeText = this.#buffer.toString('latin1', 0, lineEnd).split(';')[0]?.trim() ?? '';
      if (!/^[0-9a-f]+$/i.test(sizeText)) throw framing(`a bad chunk size ${sizeText}`);
      const size = Number.parseInt(sizeText, 16);
      if (size === 0) {
        // The last chunk, then trailers (none expected) and an empty line.
        if (this.#buffer.length < lineEnd + 4) return false;
        let trailerEnd = lineEnd + 4;
        if (!this.#buffer.subarray(lineEnd + 2, lineEnd + 4).equals(CRLF)) {
          const found = this.#buffer.indexOf(HEAD_END, lineEnd + 2);
          if (found < 0) return false;
          trailerEnd = found + 4;
        }
        this.#buffer = this.#buffer.subarray(trailerEnd);
        this.#emit(status, headers, Buffer.concat(this.#parts));
        return true;
      }
      if (this.#buffer.length < lineEnd + 2 + size + 2) return false;
      const dataEnd = lineEnd + 2 + size;
      if (!this.#buffer.subarray(dataEnd, dataEnd + 2).equals(CRLF)) {
        throw framing('a chunk not followed by CRLF');
      }
      this.#parts.push(this.#buffer.subarray(lineEnd + 2, dataEnd));
      this.#buffer = this.#buffer.subarray(dataEnd + 2);
      return true;
    }
    const lengthText = headers.get('content-length');
    const length = lengthText === undefined ? 0 : Number(lengthText);
    if (!Number.isSafeInteger(length) || length < 0) throw framing(`Content-Length ${lengthText}`);
    if (lengthText === undefined && status !== 202 && status !== 204 && status !== 304) {
      throw framing(`status ${status} with neither Content-Length nor a chunked body`);
    }
    if (this.#buffer.length < length) return false;
    const body = this.#buffer.subarray(0, length);
    this.#buffer = this.#buffer.subarray(length);
    this.#emit(status, headers, body);
    return true;
  }

  #emit(status: number, headers: Map<string, string>, body: Buffer): void {
    this.#head = undefined;
    this.#parts = [];
    this.onResponse({ status, headers, body: body.toString('utf8') });
  }
}

const framing = (message: string) => new McpSocketError('mcp_socket_framing', message);

/** The JSON-RPC messages of an SSE body, in order (`data:` lines of each event joined). */
export function sseMessages(body: string): unknown[] {
  const messages: unknown[] = [];
  for (const event of body.split(/\r?\n\r?\n/)) {
    let data: string | undefined;
    for (const line of event.split(/\r?\n/)) {
      if (!line.startsWith('data:')) continue;
      const value = line.slice(line[5] === ' ' ? 6 : 5);
      data = data === undefined ? value : `${data}\n${value}`;
    }
    if (data !== undefined) messages.push(JSON.parse(data));
  }
  return messages;
}

export interface McpSocketClient {
  /** A JSON-RPC request; resolves with its answer message (a result or an error). */
  rpc(method: string, params: object): Promise<any>;
  /** Every message of the last answer's stream before the answer (progress, notices). */
  readonly before: unknown[];
  close(): void;
}

/**
 * Connects to `url` (`http://127.0.0.1:<port>/mcp`), initializes a session with `secret` as
 * the bearer secret, and returns its client.
 */
export async function connectMcpSocket(
  url: string,
  secret: string,
  protocolVersion = '2025-06-18',
): Promise<McpSocketClient> {
  const target = new URL(url);
  const socket: Socket = connect({ host: target.hostname, port: Number(target.port) });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const waiting: Array<{
    resolve: (response: RawResponse) => void;
    reject: (error: Error) => void;
  }> = [];
  const failAll = (error: Error) => {
    for (const waiter of waiting.splice(0)) waiter.reject(error);
  };
  const reader = new ResponseReader(
    (response) => waiting.shift()?.resolve(response),
    (error) => {
      failAll(error);
      socket.destroy();
    },
  );
  socket.on('data', (chunk: Buffer) => reader.push(chunk));
  socket.on('error', (error) => failAll(error));
  socket.on('close', () =>
    failAll(new McpSocketError('mcp_socket_closed', 'the server closed the connection')),
  );

  const fixed =
    `Host: ${target.host}\r\nAuthorization: Bearer ${secret}\r\n` +
    'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n';
  let session = '';
  const post = (message: object): Promise<RawResponse> => {
    const text = JSON.stringify(message);
    return new Promise((resolve, reject) => {
      if (socket.destroyed) {
        reject(new McpSocketError('mcp_socket_closed', 'the connection is closed'));
        return;
      }
      waiting.push({ resolve, reject });
      socket.write(
        `POST ${target.pathname} HTTP/1.1\r\n${fixed}${session}Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      );
    });
  };

  const before: unknown[] = [];
  /** The answer to request `id` in `response`, checked. */
  const answerOf = (id: number, response: RawResponse): any => {
    if (response.status !== 200) {
      throw new McpSocketError(
        'mcp_socket_status',
        `HTTP ${response.status} for request ${id}: ${response.body.slice(0, 300)}`,
        response.status,
        response.body,
      );
    }
    const type = response.headers.get('content-type') ?? '';
    const messages = type.startsWith('text/event-stream')
      ? sseMessages(response.body)
      : [JSON.parse(response.body)];
    before.length = 0;
    for (const message of messages) {
      const m = message as { id?: unknown; method?: unknown };
      if (m.id === id && m.method === undefined) return message;
      before.push(message);
    }
    throw new McpSocketError(
      'mcp_socket_no_answer',
      `no answer with id ${id} in the response: ${response.body.slice(0, 300)}`,
      response.status,
      response.body,
    );
  };

  let nextId = 0;
  const rpc = async (method: string, params: object): Promise<any> => {
    const id = nextId++;
    return answerOf(id, await post({ jsonrpc: '2.0', id, method, params }));
  };

  try {
    const opened = await post({
      jsonrpc: '2.0',
      id: nextId,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
    });
    const initialized = answerOf(nextId++, opened);
    if (!initialized.result) {
      throw new McpSocketError(
        'mcp_socket_status',
        `initialize failed: ${JSON.stringify(initialized)}`,
      );
    }
    const sessionId = opened.headers.get('mcp-session-id');
    if (!sessionId) throw new McpSocketError('mcp_socket_framing', 'no Mcp-Session-Id');
    session = `Mcp-Session-Id: ${sessionId}\r\nMCP-Protocol-Version: ${protocolVersion}\r\n`;
    const notified = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (notified.status !== 202) {
      throw new McpSocketError(
        'mcp_socket_status',
        `notifications/initialized got HTTP ${notified.status}`,
        notified.status,
        notified.body,
      );
    }
  } catch (error) {
    socket.destroy();
    throw error;
  }
  return { rpc, before, close: () => socket.destroy() };
}
