// @vitest-environment happy-dom

// Issue 17 part 3: `session.open` names the tab. By default it reads this document's location
// and title; `ConnectOptions.page` overrides any of the three, for code that connects on a tab's
// behalf (an extension's service worker). A field that is not a string keeps the default.
import { install } from '@toolwire/polyfill';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import type { Session } from '../src/connect.js';
import { connect } from '../src/connect.js';
import type { ConnectOptions } from '../src/options.js';
import { FakeSocket, sockets } from './fake-socket.js';

const sessions: Session[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
  sockets.length = 0;
});

/** The `page` of the `session.open` a connect() with `page` sends. */
async function openedPage(page?: ConnectOptions['page']): Promise<Record<string, unknown>> {
  const { tools } = install();
  const session = connect({
    url: 'ws://127.0.0.1:9/toolwire?token=t',
    // This host stand-in sends no proof: the handshake has its own tests (pairing.test.ts).
    hostProof: false,
    tools,
    builtins: false,
    reconnect: false,
    WebSocket: FakeSocket as unknown as typeof WebSocket,
    ...(page === undefined ? {} : { page }),
  });
  sessions.push(session);
  await until(() => sockets.length === 1);
  const socket = sockets[0] as FakeSocket;
  socket.open();
  await until(() => socket.frames('session.open').length === 1);
  return socket.frames('session.open')[0].payload.page;
}

describe('the tab identity in session.open', () => {
  it('names this document by default: its origin, address and title', async () => {
    document.title = 'Inbox (3)';
    expect(await openedPage()).toEqual({
      origin: location.origin,
      url: location.href,
      title: 'Inbox (3)',
    });
  });

  it('takes ConnectOptions.page over the document, field by field', async () => {
    document.title = 'The worker itself';
    expect(
      await openedPage({
        url: 'https://mail.example/inbox',
        title: 'Inbox',
        origin: 'https://mail.example',
      }),
    ).toEqual({
      origin: 'https://mail.example',
      url: 'https://mail.example/inbox',
      title: 'Inbox',
    });
    for (const session of sessions.splice(0)) session.close();
    sockets.length = 0;
    // Only the title given: the rest is still this document's.
    expect(await openedPage({ title: 'Tab title' })).toEqual({
      origin: location.origin,
      url: location.href,
      title: 'Tab title',
    });
  });

  it('keeps the default for a field that is not a string', async () => {
    document.title = 'Honest title';
    expect(
      await openedPage({ title: 42, url: null, origin: {} } as unknown as ConnectOptions['page']),
    ).toEqual({ origin: location.origin, url: location.href, title: 'Honest title' });
  });
});
