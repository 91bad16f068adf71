import { gunzipSync } from 'node:zlib';
import { install } from '@toolwire/polyfill';
import { sessionWelcome } from '@toolwire/protocol';
import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { connect } from '../src/connect.js';
import { FakeSocket, sockets } from './fake-socket.js';

// The page gzips a large result only when the host's welcome does not say
// `compressPayloads: false` (docs/wire.md "Large payloads", issue 16 item 3); with no welcome,
// or a field that is not a boolean, it keeps its default: gzip 32 KiB or more.

const rows = Array.from({ length: 2_000 }, (_, i) => ({ id: i, name: `row ${i}`, ok: true }));

/** A page with one tool returning ~70 KiB of rows, over a FakeSocket, opened. */
async function openPage() {
  const win = new Window({ url: 'https://app.example/' });
  const { tools, toolManager } = install({ window: win as unknown as never });
  await toolManager.register({
    name: 'rows',
    naturalLanguageProperties: { description: 'rows', annotations: { readOnlyHint: true } },
    execute: () => ({ rows }),
  });
  const before = sockets.length;
  const session = connect({
    url: 'ws://127.0.0.1:9/toolwire?token=t',
    // This host stand-in sends no proof: the handshake has its own tests (pairing.test.ts).
    hostProof: false,
    tools,
    builtins: false,
    reconnect: false,
    WebSocket: FakeSocket as unknown as typeof WebSocket,
  });
  await until(() => sockets.length === before + 1);
  const socket = sockets.at(-1) as FakeSocket;
  socket.open();
  await until(() => socket.frames('session.open').length === 1);
  let n = 0;
  const call = async (): Promise<Record<string, unknown>> => {
    const id = `call-${++n}`;
    socket.receive({
      type: 'tool.call',
      id,
      sessionId: 's1',
      capability: 'tool.exec',
      payload: { toolId: 'rows', arguments: {} },
    });
    await until(() => socket.frames('tool.result').some((frame) => frame.replyTo === id));
    return socket.frames('tool.result').find((frame) => frame.replyTo === id).payload;
  };
  return { session, socket, call };
}

function welcome(extra: Record<string, unknown> = {}) {
  const message = sessionWelcome({
    sessionId: 's1',
    hostRun: 'run-1',
    maxToolPolicy: 'read',
    heartbeatIntervalMs: 0,
  });
  return { ...message, payload: { ...message.payload, ...extra } };
}

describe('the page compresses as the welcome says', () => {
  it('compressPayloads false: the result goes as it is', async () => {
    const { session, socket, call } = await openPage();
    socket.receive(welcome({ compressPayloads: false }));
    const payload = await call();
    expect(payload.$ansightEncoding).toBeUndefined();
    expect((payload.result as { rows: unknown }).rows).toEqual(rows);
    session.close();
  });

  it('compressPayloads true: gzipped, one member node:zlib reads', async () => {
    const { session, socket, call } = await openPage();
    socket.receive(welcome({ compressPayloads: true }));
    const payload = await call();
    expect(payload.$ansightEncoding).toBe('gzip-base64-json');
    const text = gunzipSync(Buffer.from(String(payload.data), 'base64')).toString('utf8');
    expect(JSON.parse(text).result.rows).toEqual(rows);
    session.close();
  });

  it('no welcome, or garbage in the field: the default, gzipped', async () => {
    const { session, socket, call } = await openPage();
    expect((await call()).$ansightEncoding).toBe('gzip-base64-json');
    socket.receive(welcome({ compressPayloads: 'false' }));
    expect(session.grant).toBe('read');
    expect((await call()).$ansightEncoding).toBe('gzip-base64-json');
    session.close();
  });
});
