import { afterAll, describe, expect, it } from 'vitest';
import type { Host, HostSession } from '../src/index.js';
import { createHost } from '../src/index.js';
import { FakePage, tool } from './helpers.js';

// Load (issue 7): 200 concurrent sessions, each a Node client running the real page engine
// (@toolwire/protocol's createToolBridge) over its own ws socket and sending session.open as
// the endpoint does, x 50 calls each, all in flight at once. Nothing may be lost, duplicated
// or crossed between sessions.

const SESSIONS = 200;
const CALLS = 50;

let host: Host | undefined;
const pages: FakePage[] = [];

afterAll(async () => {
  for (const page of pages.splice(0)) page.socket.terminate();
  await host?.close();
});

describe('load', () => {
  it(`${SESSIONS} sessions x ${CALLS} calls: no response lost, duplicated or crossed`, async () => {
    // No heartbeat: on a loaded machine this process, busy with 10,000 calls, can take longer
    // than three intervals to read a page's pong, and a session closed as silent is not what
    // this test is about.
    host = await createHost({ origins: ['*'], heartbeatIntervalMs: 0 });
    const executed = new Map<string, number[]>();
    const connected = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, index) => {
        const key = `load-page-${index}`;
        executed.set(key, []);
        const page = await FakePage.connect((host as Host).url, {
          key,
          tools: [
            tool('load.echo', async (args: any) => {
              (executed.get(key) as number[]).push(args.n);
              // Answer out of order: a few ms of jitter per call. The jitter is the scenario,
              // not a wait: no check depends on how long it lasts.
              await new Promise((resolve) => setTimeout(resolve, (args.n * 7) % 5));
              return { key, n: args.n };
            }),
          ],
        });
        pages.push(page);
        return page;
      }),
    );
    const sessions = new Map<string, HostSession>();
    await Promise.all(
      connected.map(async (page) => {
        const session = await (host as Host).waitForSession({
          // A generous bound, as for the calls below: 200 first catalogs on a loaded machine.
          timeoutMs: 120_000,
          filter: (s) => s.info?.key === page.key && s.catalog.get('load.echo') !== undefined,
        });
        sessions.set(page.key, session);
      }),
    );
    expect(new Set([...sessions.values()].map((s) => s.id)).size).toBe(SESSIONS);

    const started = performance.now();
    const results = await Promise.all(
      [...sessions].flatMap(([key, session]) =>
        Array.from({ length: CALLS }, async (_, n) => {
          // A generous deadline: on a loaded machine 10,000 calls in flight can take longer
          // than the default 20 s, and this test is about nothing lost, not about speed.
          const answer = await session.call('load.echo', { n }, { timeoutMs: 120_000 });
          return { key, n, answer };
        }),
      ),
    );
    const elapsed = performance.now() - started;

    expect(results).toHaveLength(SESSIONS * CALLS);
    for (const { key, n, answer } of results) {
      // Each answer is the one to this call, from this session's page.
      expect(answer.result).toEqual({ key, n });
    }
    for (const [key, session] of sessions) {
      // Each page ran each call exactly once; the host saw one response per request.
      expect([...(executed.get(key) as number[])].sort((a, b) => a - b)).toEqual(
        Array.from({ length: CALLS }, (_, n) => n),
      );
      expect(session.stats.responses).toBe(session.stats.requests);
      expect(session.pendingCount).toBe(0);
    }
    const frames = connected.map((page) => page.requests('tool.call').length);
    expect(frames.every((count) => count === CALLS)).toBe(true);
    // For the log: the whole run is a few seconds on two cores.
    console.info(
      `load: ${SESSIONS * CALLS} calls over ${SESSIONS} sessions in ${elapsed.toFixed(0)} ms`,
    );
  }, 180_000);
});
