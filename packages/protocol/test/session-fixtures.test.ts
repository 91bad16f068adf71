import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { GuardReport, SessionMessage } from '../src/index.js';
import {
  catalogChanged,
  isSessionMessageType,
  isSessionPing,
  isSessionPong,
  readCatalogChanged,
  readSessionCancel,
  readSessionOpen,
  readSessionProgress,
  readWelcome,
  sessionCancel,
  sessionOpen,
  sessionPing,
  sessionPong,
  sessionProgress,
  sessionWelcome,
} from '../src/index.js';

/**
 * Golden fixtures for toolwire's session vocabulary (docs/style.md 13), beside the tool.* ones in
 * fixtures.test.ts: each message as its builder writes it, compared as text (key order
 * included), then read back by its reader. `UPDATE_FIXTURES=1` rewrites them; review the diff by
 * hand before committing. The random id and the time are checked for format, then replaced.
 */

const fixturesDir = new URL('./fixtures/', import.meta.url);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The frame as sent (compact JSON), its id and time replaced after a format check. */
function normalize(message: SessionMessage): unknown {
  const envelope = JSON.parse(JSON.stringify(message)) as Record<string, unknown>;
  expect(envelope.sentAt).toMatch(ISO);
  const id = String(envelope.id);
  expect(id.startsWith(`${message.type}.`), id).toBe(true);
  expect(id.length).toBeGreaterThan(message.type.length + 8);
  return { ...envelope, id: `${message.type}.<random>`, sentAt: '<sentAt>' };
}

function golden(name: string, message: SessionMessage): void {
  const text = `${JSON.stringify(normalize(message), null, 2)}\n`;
  const file = new URL(`${name}.json`, fixturesDir);
  if (process.env.UPDATE_FIXTURES === '1' || !existsSync(file)) {
    if (process.env.CI) throw new Error(`fixture ${name}.json is missing`);
    writeFileSync(file, text);
  }
  expect(text).toBe(readFileSync(file, 'utf8'));
  expect(isSessionMessageType(message.type)).toBe(true);
}

/** The message as the other side receives it: the frame, parsed. */
const received = (message: SessionMessage): unknown => JSON.parse(JSON.stringify(message));

const GUARD: GuardReport = {
  discoveryEnabled: true,
  executionEnabled: true,
  maxPolicy: 'read',
  preset: 'read-only',
  hidden: [
    { id: 'cart.clear', policy: 'critical' },
    { id: 'cart.add', policy: 'write' },
  ],
};

describe('golden fixtures: session messages', () => {
  it('session.open: who the page is, its guard and what it hides', () => {
    const payload = {
      sdk: { name: '@toolwire/endpoint', version: '0.1.0' },
      page: { origin: 'https://app.example', url: 'https://app.example/cart', title: 'Cart' },
      session: 'page-key-1',
      guard: GUARD,
    };
    const message = sessionOpen(payload);
    golden('session-open', message);
    expect(readSessionOpen(received(message))).toEqual(payload);
    // Without a guard report (an SDK that sends none): read without one.
    const bare = sessionOpen({ ...payload, guard: undefined });
    expect(readSessionOpen(received(bare))).toEqual({ ...payload, guard: undefined });
    expect(readSessionOpen(received(bare))).not.toHaveProperty('guard');
    // After a proven welcome, the page's own proof.
    const proven = sessionOpen({ ...payload, proof: 'page-mac' });
    golden('session-open-proof', proven);
    expect(readSessionOpen(received(proven))).toEqual({ ...payload, proof: 'page-mac' });
  });

  it('session.welcome: the grant and the heartbeat; its proof and id when it has them', () => {
    const payload = {
      sessionId: 'session-1',
      hostRun: 'run-1',
      maxToolPolicy: 'write' as const,
      heartbeatIntervalMs: 15_000,
    };
    const resumed = sessionWelcome(payload);
    golden('session-welcome', resumed);
    expect(readWelcome(received(resumed))).toEqual(payload);
    const proven = {
      ...payload,
      proof: { nonce: 'host-nonce', mac: 'host-mac' },
      hostId: 'host-1',
    };
    const withProof = sessionWelcome(proven);
    golden('session-welcome-proof', withProof);
    expect(readWelcome(received(withProof))).toEqual(proven);
    // A proof that is not {nonce, mac} of strings is no proof.
    for (const proof of [{ nonce: 'n' }, { nonce: 1, mac: 'm' }, 'mac', null]) {
      const odd = { ...(received(withProof) as object), payload: { ...payload, proof } };
      expect(readWelcome(odd)).toEqual(payload);
    }
  });

  it('session.welcome: compressPayloads, the host asking for (or against) gzipped payloads', () => {
    const payload = {
      sessionId: 'session-1',
      hostRun: 'run-1',
      maxToolPolicy: 'write' as const,
      heartbeatIntervalMs: 15_000,
      compressPayloads: false,
    };
    const loopback = sessionWelcome(payload);
    golden('session-welcome-uncompressed', loopback);
    expect(readWelcome(received(loopback))).toEqual(payload);
    const remote = sessionWelcome({ ...payload, compressPayloads: true });
    expect(readWelcome(received(remote))?.compressPayloads).toBe(true);
  });

  it('session.welcome: garbage in compressPayloads is no word, and the welcome still counts', () => {
    const welcome = received(
      sessionWelcome({
        sessionId: 's',
        hostRun: 'r',
        maxToolPolicy: 'read',
        heartbeatIntervalMs: 0,
      }),
    ) as Record<string, any>;
    for (const garbage of ['false', 0, 1, null, {}, [], 'yes']) {
      const read = readWelcome({
        ...welcome,
        payload: { ...welcome.payload, compressPayloads: garbage },
      });
      expect(read, String(garbage)).toBeDefined();
      expect(read && 'compressPayloads' in read, String(garbage)).toBe(false);
    }
  });

  it('session.ping and session.pong: the pong replies to the ping', () => {
    const ping = sessionPing('session-1');
    golden('session-ping', ping);
    expect(isSessionPing(received(ping))).toBe(true);
    const pong = sessionPong({ id: 'session.ping.1' });
    golden('session-pong', pong);
    expect(isSessionPong(received(pong))).toBe(true);
    expect(sessionPong(ping).replyTo).toBe(ping.id);
  });

  it('session.cancel: the request the caller gave up on, and why', () => {
    const payload = { requestId: 'call-3f2a9c-7', reason: 'the MCP client cancelled' };
    const message = sessionCancel(payload, 'session-1');
    golden('session-cancel', message);
    expect(readSessionCancel(received(message))).toEqual(payload);
    const bare = sessionCancel({ requestId: 'batch-3f2a9c-8' });
    expect(readSessionCancel(received(bare))).toEqual({ requestId: 'batch-3f2a9c-8' });
  });

  it('session.progress: how far a request that asked has got', () => {
    const payload = {
      requestId: 'call-3f2a9c-7',
      progress: 40,
      total: 100,
      message: 'page 2 of 5',
    };
    const message = sessionProgress(payload);
    golden('session-progress', message);
    expect(readSessionProgress(received(message))).toEqual(payload);
    const bare = sessionProgress({ requestId: 'call-3f2a9c-7', progress: 0.5 });
    expect(readSessionProgress(received(bare))).toEqual({
      requestId: 'call-3f2a9c-7',
      progress: 0.5,
    });
  });

  it('tool.catalog.changed: both revisions and the guard report, on the tool capability', () => {
    const payload = {
      revision: 'sha256:ecefd4c515eb0ac060d59ac1834731748a2b0c426f9c63432636d0b7fff285f6',
      availabilityRevision:
        'sha256:37f17f91351601509e28c92b979c2cc0d11fdf6f03a360f00a46c4b1b436a5c0',
      guard: GUARD,
    };
    const message = catalogChanged(payload);
    golden('catalog-changed', message);
    expect(readCatalogChanged(received(message))).toEqual(payload);
  });
});

describe('session message readers refuse what is not one', () => {
  it('each reader: the honest message first, then wrong types and shapes', () => {
    const open = received(
      sessionOpen({
        sdk: { name: 'sdk', version: '1' },
        page: { origin: 'o', url: 'u', title: 't' },
        session: 'k',
      }),
    ) as Record<string, any>;
    expect(readSessionOpen(open)).toBeDefined();
    expect(readSessionOpen({ ...open, type: 'session.welcome' })).toBeUndefined();
    expect(readSessionOpen({ ...open, payload: { ...open.payload, sdk: 'toolwire' } })).toBe(
      undefined,
    );
    expect(readSessionOpen({ ...open, payload: { ...open.payload, session: 7 } })).toBe(undefined);
    // Page text is clipped: it is the page's word.
    const long = readSessionOpen({
      ...open,
      payload: { ...open.payload, page: { ...open.payload.page, title: 'x'.repeat(5000) } },
    });
    expect(long?.page.title).toHaveLength(2048);

    const changed = received(catalogChanged({ revision: 'sha256:1' })) as Record<string, any>;
    expect(readCatalogChanged(changed)).toEqual({ revision: 'sha256:1' });
    expect(readCatalogChanged({ ...changed, capability: 'other.thing' })).toBeUndefined();
    expect(readCatalogChanged({ ...changed, payload: { revision: 1 } })).toBeUndefined();
    expect(readCatalogChanged({ ...changed, type: 'session.open' })).toBeUndefined();
    // A bad guard report is left out, not a reason to drop the push.
    expect(
      readCatalogChanged({ ...changed, payload: { revision: 'r', guard: { maxPolicy: 'all' } } }),
    ).toEqual({ revision: 'r' });

    const ping = received(sessionPing()) as Record<string, any>;
    expect(isSessionPing(ping)).toBe(true);
    expect(isSessionPing({ ...ping, id: undefined })).toBe(false);
    expect(isSessionPing({ ...ping, type: 'session.pong' })).toBe(false);
    const pong = received(sessionPong({ id: 'p' })) as Record<string, any>;
    expect(isSessionPong(pong)).toBe(true);
    expect(isSessionPong({ ...pong, replyTo: null })).toBe(false);

    const cancel = received(sessionCancel({ requestId: 'r', reason: 'x' })) as Record<string, any>;
    expect(readSessionCancel(cancel)).toEqual({ requestId: 'r', reason: 'x' });
    expect(readSessionCancel({ ...cancel, type: 'session.progress' })).toBeUndefined();
    expect(readSessionCancel({ ...cancel, payload: { requestId: '' } })).toBeUndefined();
    expect(readSessionCancel({ ...cancel, payload: { requestId: 7 } })).toBeUndefined();
    // A reason of the wrong type is left out; a long one is clipped.
    expect(readSessionCancel({ ...cancel, payload: { requestId: 'r', reason: 5 } })).toEqual({
      requestId: 'r',
    });
    expect(
      readSessionCancel({ ...cancel, payload: { requestId: 'r', reason: 'y'.repeat(5000) } })
        ?.reason,
    ).toHaveLength(2048);

    const progress = received(sessionProgress({ requestId: 'r', progress: 1 })) as Record<
      string,
      any
    >;
    expect(readSessionProgress(progress)).toEqual({ requestId: 'r', progress: 1 });
    expect(readSessionProgress({ ...progress, type: 'session.cancel' })).toBeUndefined();
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, '1', null]) {
      expect(
        readSessionProgress({ ...progress, payload: { requestId: 'r', progress: bad } }),
        String(bad),
      ).toBeUndefined();
    }
    expect(
      readSessionProgress({
        ...progress,
        payload: { requestId: 'r', progress: 2, total: 'ten', message: 'z'.repeat(5000) },
      }),
    ).toEqual({ requestId: 'r', progress: 2, message: 'z'.repeat(2048) });
  });
});
