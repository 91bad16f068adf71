import type { Tools } from '@toolwire/polyfill';
import { describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { connect } from '../src/connect.js';
import { FakeSocket, sockets } from './fake-socket.js';

/** A page with no tools of its own. */
function emptyTools(): Tools {
  const tools = new EventTarget() as EventTarget & Record<string, unknown>;
  tools.getTools = async () => [];
  tools.sourceOf = () => undefined;
  return tools as unknown as Tools;
}

/** A session over a fresh FakeSocket, opened: the page has no tools and no built-ins. */
async function openSession() {
  const before = sockets.length;
  const session = connect({
    url: 'ws://127.0.0.1:9/toolwire?token=t',
    // This host stand-in sends no proof: the handshake has its own tests (pairing.test.ts).
    hostProof: false,
    tools: emptyTools(),
    builtins: false,
    reconnect: false,
    WebSocket: FakeSocket as unknown as typeof WebSocket,
  });
  await until(() => sockets.length === before + 1);
  const socket = sockets.at(-1) as FakeSocket;
  socket.open();
  return { session, socket };
}

describe('Session events', () => {
  it('request carries the decoded message; response the envelope answering it', async () => {
    const { session, socket } = await openSession();
    const requests: { type: unknown; id: unknown; toolId: unknown; message: unknown }[] = [];
    const responses: { type?: unknown; replyTo?: unknown }[] = [];
    session.addEventListener('request', (event) => {
      const { type, id, toolId, message } = (event as CustomEvent).detail;
      requests.push({ type, id, toolId, message });
    });
    session.addEventListener('response', (event) => {
      responses.push((event as CustomEvent).detail);
    });
    const call = {
      type: 'tool.call',
      id: 'call-1',
      capability: 'tool.exec',
      payload: { toolId: 'notes.add', arguments: { text: 'hello', when: '2030-01-01T00:00:00Z' } },
    };
    socket.onmessage?.({ data: JSON.stringify(call) });
    await until(() => responses.length === 1);
    expect(requests).toEqual([
      { type: 'tool.call', id: 'call-1', toolId: 'notes.add', message: call },
    ]);
    expect(responses[0]).toMatchObject({ type: 'tool.error', replyTo: 'call-1' });

    // Not JSON: the fields are undefined, nothing throws.
    socket.onmessage?.({ data: 'not json' });
    await until(() => requests.length === 2);
    expect(requests[1]).toEqual({
      type: undefined,
      id: undefined,
      toolId: undefined,
      message: undefined,
    });
    session.close();
  });
});

const callFrame = (id: string) =>
  JSON.stringify({ type: 'tool.call', id, capability: 'tool.exec', payload: { toolId: 'x' } });

describe('Session events nobody listens to', () => {
  it('are skipped without changing the answers, and start once a listener is added', async () => {
    const { session, socket } = await openSession();
    const dispatched: string[] = [];
    const dispatch = session.dispatchEvent.bind(session);
    session.dispatchEvent = (event: Event) => {
      dispatched.push(event.type);
      return dispatch(event);
    };

    // No listener: the call is answered exactly as before, and no request/response event is made.
    socket.onmessage?.({ data: callFrame('call-1') });
    await until(() => socket.sent.some((frame) => frame.includes('"replyTo":"call-1"')));
    const answer = JSON.parse(socket.sent.at(-1) as string);
    expect(answer).toMatchObject({
      type: 'tool.error',
      id: 'call-1.response',
      replyTo: 'call-1',
      payload: { code: 'tool_not_found' },
    });
    expect(dispatched.filter((type) => type === 'request' || type === 'response')).toEqual([]);

    // A listener for one of them: from now on both kinds it asks for arrive.
    const seen: string[] = [];
    session.addEventListener('response', (event) =>
      seen.push(`response ${(event as CustomEvent).detail.replyTo}`),
    );
    session.addEventListener('request', (event) =>
      seen.push(`request ${(event as CustomEvent).detail.id}`),
    );
    socket.onmessage?.({ data: callFrame('call-2') });
    await until(() => seen.length === 2);
    expect(seen).toEqual(['request call-2', 'response call-2']);
    session.close();
  });
});
