import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../src/index.js';
import { createHost } from '../src/index.js';
import { FakePage, tool } from './helpers.js';

// Issue 13, part 9, over a real `ws` socket: a reply the host cannot read or match fails its
// call with `tool_protocol_invalid_response` (the reason in its details), not by a timeout, and
// the session goes on serving honest replies.

let host: Host | undefined;
let page: FakePage | undefined;

afterEach(async () => {
  page?.socket.terminate();
  page = undefined;
  await host?.close();
  host = undefined;
});

/** The raw text the page sends instead of its answer to a `demo.bad` call of `kind`. */
function badReply(kind: string, request: { id: string; sessionId: string }): string {
  const envelope = (type: string, payload: unknown) =>
    JSON.stringify({
      type,
      id: `${request.id}.response`,
      replyTo: request.id,
      sessionId: request.sessionId,
      sentAt: new Date().toISOString(),
      capability: 'tool.exec',
      ...(payload === undefined ? {} : { payload }),
    });
  switch (kind) {
    case 'not-json':
      return `{"type":"tool.result","id":"${request.id}.response","replyTo":"${request.id}","payload":{oops}`;
    case 'wrong-type':
      return envelope('tool.catalog', { schema: 'ansight.tool-catalog.v3', revision: 'r' });
    case 'bad-wrapper':
      return envelope('tool.result', { $ansightEncoding: 'gzip-base64-json', data: '@@@@' });
    case 'no-payload':
      return envelope('tool.result', undefined);
    default:
      throw new Error(kind);
  }
}

describe('replies the host cannot use, over a real socket', () => {
  it('fail their call at once with a reason; honest replies before and after resolve', async () => {
    host = await createHost({ origins: ['*'] });
    const sent: string[] = [];
    page = await FakePage.connect(host.url, {
      tools: [tool('demo.echo'), tool('demo.bad')],
      intercept: (message) => {
        if (message.type !== 'tool.call' || message.payload?.toolId !== 'demo.bad')
          return undefined;
        const frame = badReply(String(message.payload.arguments?.kind), message);
        sent.push(frame);
        page?.socket.send(frame);
        return 'hold';
      },
    });
    const current = page;
    const session = await host.waitForSession({ filter: (s) => s.info?.key === current.key });

    // Honest first: the same session, the same socket, an answer that resolves.
    expect((await session.call('demo.echo', { text: 'hi' })).result).toEqual({ text: 'hi' });

    const cases: [string, string][] = [
      ['not-json', 'unreadable'],
      ['wrong-type', 'type_mismatch'],
      ['bad-wrapper', 'payload_encoding'],
      ['no-payload', 'payload_invalid'],
    ];
    for (const [kind, reason] of cases) {
      // An hour's timeout, far past the test's own: an error here came from the reply.
      const error = await session
        .call('demo.bad', { kind }, { timeoutMs: 60 * 60_000 })
        .catch((caught) => caught);
      expect(error).toMatchObject({
        code: 'tool_protocol_invalid_response',
        details: { reason },
      });
      expect(session.pendingCount).toBe(0);
    }
    expect(sent).toHaveLength(4);
    // And the session still serves honest replies.
    expect((await session.call('demo.echo', { text: 'again' })).result).toEqual({ text: 'again' });
    expect(session.isOpen).toBe(true);
  });
});
