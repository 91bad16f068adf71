/**
 * `pnpm demo`, for now: the wire protocol end to end over a real WebSocket on 127.0.0.1.
 * A "page" (here a Node ws client running @toolwire/protocol's bridge) connects to a "host"
 * (a ws server running the client side); the host lists, calls and batches its tools and
 * prints each exchange. The browser demo replaces this once the polyfill and endpoint exist.
 */
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { createAjvProvider } from '../packages/protocol/src/ajv.js';
import type { BridgeTool, Transport } from '../packages/protocol/src/index.js';
import { createToolBridge, createToolClient, toolFailure } from '../packages/protocol/src/index.js';

function socketTransport(socket: WebSocket): Transport {
  const transport: Transport = {
    send: (frame) => socket.send(frame),
    close: () => socket.close(1000),
  };
  socket.on('message', (data, isBinary) => {
    if (!isBinary) transport.onmessage?.(data.toString());
  });
  socket.on('close', (code, reason) => transport.onclose?.({ code, reason: reason.toString() }));
  return transport;
}

const notes = new Map<string, string>();
const tools: BridgeTool[] = [
  {
    definition: {
      id: 'notes.add',
      name: 'Add note',
      description: 'Stores a note under a title.',
      category: 'notes',
      policy: 'write',
      argumentsSchema: {
        type: 'object',
        properties: { title: { type: 'string', minLength: 1 }, body: { type: 'string' } },
        required: ['title', 'body'],
        additionalProperties: false,
      },
      resultSchema: {
        type: 'object',
        properties: { count: { type: 'integer' } },
        required: ['count'],
      },
    },
    execute: (args) => {
      notes.set(String(args.title), String(args.body));
      return { count: notes.size };
    },
  },
  {
    definition: {
      id: 'notes.get',
      name: 'Get note',
      description: 'Reads a note by title.',
      category: 'notes',
      policy: 'read',
      argumentsSchema: {
        type: 'object',
        properties: { title: { type: 'string' } },
        required: ['title'],
      },
      resultSchema: { type: 'object' },
      prerequisiteToolIds: ['notes.add'],
    },
    execute: (args) => {
      const body = notes.get(String(args.title));
      return body === undefined
        ? toolFailure({
            code: 'note_not_found',
            message: `No note titled "${String(args.title)}".`,
          })
        : { title: args.title, body };
    },
  },
];

const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const { port } = server.address() as AddressInfo;
const hostSide = new Promise<WebSocket>((resolve) => server.once('connection', resolve));

// The page: answers tool requests with the bridge.
const pageSocket = new WebSocket(`ws://127.0.0.1:${port}/`);
const bridge = createToolBridge({
  validator: createAjvProvider(),
  tools: () => tools,
  guard: 'read-write',
});
const pageTransport = socketTransport(pageSocket);
pageTransport.onmessage = async (frame) => {
  const response = await bridge.handle(frame);
  if (response) pageTransport.send(response.frame);
};

// The host: asks.
const host = createToolClient(socketTransport(await hostSide), { sessionId: 'demo-session' });
const show = (label: string, value: unknown) =>
  console.log(`\n${label}\n  ${JSON.stringify(value)}`);

console.log(
  `toolwire protocol example: host ws://127.0.0.1:${port} <-> page bridge (browser demo: not yet built)`,
);
const index = await host.query({ detail: 'index' });
show('tool.query {detail:"index"} ->', index);
if (!('tools' in index)) throw new Error('expected a listing');
show(
  'tool.query again with both revisions ->',
  await host.query({
    detail: 'index',
    ifRevision: index.revision,
    ifAvailabilityRevision: index.availabilityRevision,
  }),
);
show(
  'tool.call notes.add ->',
  await host.call({ toolId: 'notes.add', arguments: { title: 'hello', body: 'world' } }),
);
show(
  'tool.batch [get hello, get missing, add] ->',
  await host.batch({
    calls: [
      { callId: 'a', toolId: 'notes.get', arguments: { title: 'hello' } },
      { callId: 'b', toolId: 'notes.get', arguments: { title: 'missing' } },
      { callId: 'c', toolId: 'notes.add', arguments: { title: 'never', body: 'runs' } },
    ],
  }),
);
try {
  await host.call({ toolId: 'notes.add', arguments: { title: '' } });
} catch (error) {
  const { code, message } = error as { code: string; message: string };
  show('tool.call notes.add with bad arguments ->', { code, message });
}
host.close();
server.close();
console.log('\ndone.');
