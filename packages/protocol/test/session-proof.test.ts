// The handshake (docs/wire.md "The handshake"): the proofs' strings against vectors computed with
// node:crypto when this file was written, through a synchronous HMAC (node:crypto) and an
// asynchronous one (WebCrypto, as a page has); then the two session cores over the in-memory
// pair: the page serves nothing before a proven welcome, the host sends nothing before a proven
// session.open. Each refusal follows the honest run of the same setup.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { createAjvProvider } from '../src/ajv.js';
import type {
  BridgeTool,
  HmacSha256,
  HostSessionCoreOptions,
  LinkedTransport,
  PageSessionOptions,
  SessionWelcomePayload,
  TransportCloseInfo,
} from '../src/index.js';
import {
  base64url,
  createLinkedPair,
  createNonce,
  createToolBridge,
  credentialSecret,
  dialedPort,
  HostSessionCore,
  hostProof,
  isNonce,
  PageSessionCore,
  pageProof,
  SESSION_CLOSE,
  secretId,
  sessionWelcome,
} from '../src/index.js';
import { tool } from './helpers.js';

const nodeHmac = (key: string, message: string): Uint8Array =>
  new Uint8Array(createHmac('sha256', key).update(message).digest());

const webHmac = async (key: string, message: string): Promise<Uint8Array> => {
  const encoder = new TextEncoder();
  const cryptoKey = await crypto.subtle.importKey(
    'raw',
    encoder.encode(key),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, encoder.encode(message)));
};

const K = 'code-Kq8wX2pZ';
const binding = {
  pageNonce: 'pageNonceAAAAAAAAAAAAAA',
  hostNonce: 'hostNonceBBBBBBBBBBBBBB',
  port: 8787,
};

describe('proof strings: known vectors', () => {
  it('base64url: RFC 4231 case 2 (HMAC-SHA-256, key "Jefe"), and every tail length', () => {
    expect(base64url(nodeHmac('Jefe', 'what do ya want for nothing?'))).toBe(
      'W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM',
    );
    for (let length = 0; length < 8; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => 250 - i * 37);
      expect(base64url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
    }
  });

  const hmacs: [string, HmacSha256][] = [
    ['node:crypto (synchronous)', nodeHmac],
    ['WebCrypto (asynchronous)', webHmac],
  ];
  for (const [name, hmac] of hmacs) {
    it(`secretId, both proofs and the derived credential, through ${name}`, async () => {
      expect(await secretId(hmac, K)).toBe('rs8-A_MlV02jdko96xs3YG');
      expect(await secretId(hmac, 'clé ✓')).toBe('uoyELjq5KZdVuEKT1bpgou');
      expect(await hostProof(hmac, K, binding)).toBe('2XgyggY7b7bAMJLMzrNRV2m9yD6uNr2ttlm_tO5dimc');
      expect(await pageProof(hmac, K, binding)).toBe('EdJ3XddO0LU4hoEIbBI7LKcCvF_UAetcPXB6gSWvgZY');
      const credential = await credentialSecret(hmac, K, binding);
      expect(credential).toBe('cuE_3qmqphTQgDMSr0XG_mG0b1qINUOzycmoMl2RdNE');
      expect(await secretId(hmac, credential)).toBe('9iV51-PqQfHhkZ6SpHXoZS');
    });
  }

  it('a synchronous HMAC gives strings at once; each binding part changes the proof', () => {
    const proof = hostProof(nodeHmac, K, binding);
    expect(typeof proof).toBe('string');
    expect(hostProof(nodeHmac, K, { ...binding, port: '8787' })).toBe(proof);
    expect(hostProof(nodeHmac, K, { ...binding, port: 8788 })).not.toBe(proof);
    expect(hostProof(nodeHmac, K, { ...binding, pageNonce: createNonce() })).not.toBe(proof);
    expect(hostProof(nodeHmac, K, { ...binding, hostNonce: createNonce() })).not.toBe(proof);
    expect(hostProof(nodeHmac, `${K}x`, binding)).not.toBe(proof);
    // The two directions never stand in for each other.
    expect(pageProof(nodeHmac, K, binding)).not.toBe(proof);
  });

  it('nonces are 128 bits of base64url, fresh each time; the dialed port', () => {
    const a = createNonce();
    expect(a).toMatch(/^[\w-]{22}$/);
    expect(isNonce(a)).toBe(true);
    expect(createNonce()).not.toBe(a);
    for (const bad of ['short', 'x'.repeat(129), 'has space in it here!!', 42, undefined]) {
      expect(isNonce(bad)).toBe(false);
    }
    expect(dialedPort('ws://127.0.0.1:8787/toolwire')).toBe('8787');
    expect(dialedPort('ws://localhost/toolwire')).toBe('80');
    expect(dialedPort('wss://example.test/toolwire')).toBe('443');
  });
});

// ---- the cores ------------------------------------------------------------------------------

const PORT = '8787';
const PAGE_NONCE = createNonce();

interface Run {
  page: PageSessionCore;
  host: HostSessionCore;
  toPage: any[];
  toHost: any[];
  pageClosed: TransportCloseInfo[];
  hostClosed: TransportCloseInfo[];
  opened: any[];
  runs: { count: number };
  pageEnd: LinkedTransport;
  hostEnd: LinkedTransport;
}

/** The page's check of a welcome, as the endpoint wires it: the host's MAC under `key`. */
function verifyWith(key: string): (welcome: SessionWelcomePayload) => Promise<string | undefined> {
  return async (welcome) => {
    const proof = welcome.proof;
    if (!proof) return undefined;
    const bound = { pageNonce: PAGE_NONCE, hostNonce: proof.nonce, port: PORT };
    if ((await hostProof(webHmac, key, bound)) !== proof.mac) return undefined;
    return pageProof(webHmac, key, bound);
  };
}

/** The host's side of the same, as @toolwire/host wires it: a proof in the welcome, a check. */
function hostSide(key: string): Partial<HostSessionCoreOptions> {
  const hostNonce = createNonce();
  const bound = { pageNonce: PAGE_NONCE, hostNonce, port: PORT };
  return {
    proof: { nonce: hostNonce, mac: hostProof(nodeHmac, key, bound) },
    verifyPageProof: (proof) => proof === pageProof(nodeHmac, key, bound),
  };
}

async function run(
  options: {
    page?: Partial<PageSessionOptions> | false;
    host?: Partial<HostSessionCoreOptions> | false;
  },
  tools?: (runs: { count: number }) => BridgeTool[],
): Promise<Run> {
  const runs = { count: 0 };
  const served = tools?.(runs) ?? [
    tool('demo.echo', (args) => {
      runs.count++;
      return { ...args };
    }),
  ];
  const bridge = createToolBridge({
    validator: createAjvProvider(),
    tools: () => served,
    guard: 'full-access',
  });
  await bridge.snapshot();
  const [hostEnd, pageEnd] = createLinkedPair();
  const result = {
    toPage: [],
    toHost: [],
    pageClosed: [],
    hostClosed: [],
    opened: [],
    runs,
    pageEnd,
    hostEnd,
  } as unknown as Run;
  const pageSend = pageEnd.send.bind(pageEnd);
  pageEnd.send = (frame) => {
    result.toHost.push(JSON.parse(frame));
    pageSend(frame);
  };
  const hostSend = hostEnd.send.bind(hostEnd);
  hostEnd.send = (frame) => {
    result.toPage.push(JSON.parse(frame));
    hostSend(frame);
  };
  if (options.host !== false) {
    result.host = new HostSessionCore({
      id: 'session-1',
      transport: hostEnd,
      grant: 'write',
      hostRun: 'run-1',
      onOpen: (payload) => result.opened.push(payload),
      onClose: (info) => result.hostClosed.push(info),
      ...options.host,
    });
  }
  if (options.page === false) return result;
  result.page = new PageSessionCore({
    transport: pageEnd,
    bridge,
    open: () => ({
      sdk: { name: 'test-page', version: '1' },
      page: { origin: 'https://app.test', url: 'https://app.test/', title: 'App' },
      session: 'page-key',
    }),
    onClose: (info) => result.pageClosed.push(info),
    ...options.page,
  });
  result.page.start();
  return result;
}

const call = (id: string) =>
  JSON.stringify({
    type: 'tool.call',
    id,
    sentAt: new Date().toISOString(),
    sessionId: 'squat',
    capability: 'tool.exec',
    payload: { toolId: 'demo.echo', arguments: { stolen: true } },
  });

describe('PageSessionCore: the host proves itself first', () => {
  it('honest: a proven welcome, then session.open with the page proof, then calls are served', async () => {
    const s = await run({ page: { verifyWelcome: verifyWith(K) }, host: hostSide(K) });
    await until(() => s.opened.length === 1, 'session.open');
    expect(s.page.proven).toBe(true);
    const open = s.toHost.find((m) => m.type === 'session.open');
    expect(open.payload.proof).toBe(
      pageProof(nodeHmac, K, {
        pageNonce: PAGE_NONCE,
        hostNonce: s.toPage[0].payload.proof.nonce,
        port: PORT,
      }),
    );
    const response = await s.host.send('tool.call', { toolId: 'demo.echo', arguments: { a: 1 } });
    expect(response.type).toBe('tool.result');
    expect(s.runs.count).toBe(1);
  });

  it('a call before the welcome is dropped (never run, never answered), and no session.open goes out', async () => {
    // Honest first: the same socket with the right welcome after the early call.
    const honest = await run({ page: { verifyWelcome: verifyWith(K) }, host: false });
    honest.hostEnd.onmessage = () => {};
    honest.hostEnd.send(call('early-1'));
    const side = hostSide(K);
    honest.hostEnd.send(
      JSON.stringify(
        sessionWelcome({
          sessionId: 'session-1',
          hostRun: 'r',
          maxToolPolicy: 'write',
          heartbeatIntervalMs: 0,
          ...(side.proof ? { proof: side.proof } : {}),
        }),
      ),
    );
    await until(() => honest.toHost.some((m) => m.type === 'session.open'), 'session.open');
    honest.hostEnd.send(call('late-1'));
    await until(() => honest.toHost.some((m) => m.replyTo === 'late-1'), 'the late answer');
    expect(honest.runs.count).toBe(1);
    expect(honest.toHost.some((m) => m.replyTo === 'early-1')).toBe(false);

    // A peer that never welcomes: nothing at all comes back.
    const s = await run({ page: { verifyWelcome: verifyWith(K) }, host: false });
    s.hostEnd.onmessage = () => {};
    s.hostEnd.send(call('squat-1'));
    s.hostEnd.send(call('squat-2'));
    // A ping is still answered (heartbeats are not service): it shows frames were read.
    s.hostEnd.send(JSON.stringify({ type: 'session.ping', id: 'ping-1', payload: {} }));
    await until(() => s.toHost.some((m) => m.replyTo === 'ping-1'), 'the pong');
    expect(s.toHost.map((m) => m.type)).toEqual(['session.pong']);
    expect(s.runs.count).toBe(0);
    expect(s.page.proven).toBe(false);
  });

  /** A page whose stand-in host sends a welcome with `proof`, then a call. */
  async function welcomed(proof: SessionWelcomePayload['proof']): Promise<Run> {
    const s = await run({ page: { verifyWelcome: verifyWith(K) }, host: false });
    s.hostEnd.onmessage = () => {};
    s.hostEnd.send(
      JSON.stringify(
        sessionWelcome({
          sessionId: 'squat',
          hostRun: 'r',
          maxToolPolicy: 'critical',
          heartbeatIntervalMs: 0,
          ...(proof ? { proof } : {}),
        }),
      ),
    );
    // One call at once (before the page decided), one once it decided.
    s.hostEnd.send(call('call-1'));
    await until(
      () => s.pageClosed.length > 0 || s.toHost.some((m) => m.type === 'session.open'),
      'the page to decide',
    );
    if (s.page.isOpen) s.hostEnd.send(call('call-2'));
    return s;
  }

  for (const [what, proof] of [
    ['no proof', undefined],
    ['a wrong proof', { nonce: createNonce(), mac: 'A'.repeat(43) }],
    ['a proof under another key', hostSide('another-key').proof],
  ] as const) {
    it(`a welcome with ${what} closes 4010; the call after it never runs`, async () => {
      // Honest first: the right proof, and the same call is served.
      const honest = await welcomed(hostSide(K).proof);
      await until(() => honest.toHost.some((m) => m.replyTo === 'call-2'), 'the answer');
      expect(honest.runs.count).toBe(1);
      expect(honest.toHost.some((m) => m.replyTo === 'call-1')).toBe(false);

      const s = await welcomed(proof);
      await until(() => s.pageClosed.length === 1, 'the close');
      expect(s.pageClosed[0]?.code).toBe(SESSION_CLOSE.hostUnproven);
      expect(s.pageClosed[0]?.code).toBe(4010);
      expect(s.toHost).toEqual([]);
      expect(s.runs.count).toBe(0);
      expect(s.page.welcome).toBeUndefined();
    });
  }

  it('without verifyWelcome (the hostProof opt-out), requests are served at once, as before', async () => {
    const s = await run({ host: false });
    s.hostEnd.onmessage = () => {};
    s.hostEnd.send(call('plain-1'));
    await until(() => s.toHost.some((m) => m.replyTo === 'plain-1'), 'the answer');
    expect(s.toHost[0].type).toBe('session.open');
    expect(s.toHost[0].payload).not.toHaveProperty('proof');
    expect(s.runs.count).toBe(1);
  });
});

describe('HostSessionCore: the page proves itself before any request', () => {
  it('honest: the query waits for session.open, then goes', async () => {
    const s = await run({ page: { verifyWelcome: verifyWith(K) }, host: hostSide(K) });
    const querying = s.host.request('tool.query', { detail: 'index' });
    expect(s.toPage.map((m) => m.type)).toEqual(['session.welcome']);
    expect(s.host.proven).toBe(false);
    const answer = await querying;
    expect(answer.type).toBe('tool.catalog');
    expect(s.host.proven).toBe(true);
    // The query left only after the open.
    const types = s.toHost.map((m) => m.type);
    expect(types.indexOf('session.open')).toBeLessThan(types.indexOf('tool.catalog'));
    expect(s.opened).toHaveLength(1);
  });

  /** A host whose stand-in page sends session.open with `proof` (a function of the welcome). */
  async function opened(proof: (welcome: any) => string | undefined) {
    const s = await run({ page: false, host: hostSide(K) });
    const frames = s.toPage;
    const querying = s.host.request('tool.query', { detail: 'index' });
    await until(() => frames.length === 1, 'the welcome');
    const value = proof(frames[0]);
    s.pageEnd.send(
      JSON.stringify({
        type: 'session.open',
        id: 'open-1',
        sentAt: new Date().toISOString(),
        payload: {
          sdk: { name: 'x', version: '1' },
          page: { origin: 'o', url: 'u', title: 't' },
          session: 'k',
          ...(value === undefined ? {} : { proof: value }),
        },
      }),
    );
    querying.catch(() => {});
    return { s, frames, querying };
  }

  for (const [what, proof] of [
    ['no proof', () => undefined],
    ['a wrong proof', () => 'B'.repeat(43)],
    [
      'a proof for another port',
      (welcome: any) =>
        pageProof(nodeHmac, K, {
          pageNonce: PAGE_NONCE,
          hostNonce: welcome.payload.proof.nonce,
          port: '8788',
        }),
    ],
  ] as const) {
    it(`a session.open with ${what} closes 4401; the waiting request fails, none was sent`, async () => {
      // Honest first: the right page proof lets the query out.
      const honest = await opened((welcome) =>
        pageProof(nodeHmac, K, {
          pageNonce: PAGE_NONCE,
          hostNonce: welcome.payload.proof.nonce,
          port: PORT,
        }),
      );
      await until(() => honest.frames.some((m) => m.type === 'tool.query'), 'the query');
      expect(honest.s.opened).toHaveLength(1);

      const { s, frames, querying } = await opened(proof);
      await expect(querying).rejects.toMatchObject({ code: 'tool_transport_closed' });
      expect(s.hostClosed[0]?.code).toBe(SESSION_CLOSE.pairingRefused);
      expect(frames.map((m) => m.type)).toEqual(['session.welcome']);
      expect(s.opened).toEqual([]);
    });
  }
});
