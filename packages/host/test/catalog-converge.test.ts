import type { BridgeTool, Transport } from '@toolwire/protocol';
import { catalogChanged, createLinkedPair, createToolBridge } from '@toolwire/protocol';
import { createAjvProvider } from '@toolwire/protocol/ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { HostSession } from '../src/index.js';
import { tool } from './helpers.js';

// Issue 13, part 9: the host's catalog of a page converges to exactly the page's tools, however
// its pushes (`tool.catalog.changed`) and the host's conditional queries interleave. The page
// is the real bridge on the other end of the in-memory transport pair, which delivers each
// frame in its own microtask, as a socket delivers frames that arrived in one read.

interface Page {
  tools: BridgeTool[];
  /** Runs after the page answered a request (the answer is already sent). */
  after?: (message: any) => void;
  push(revisions?: { revision: string; availabilityRevision: string }): Promise<void>;
  /** The revisions the page serves now. */
  revisions(): Promise<{ revision: string; availabilityRevision: string }>;
  set(tools: BridgeTool[]): void;
}

const sessions: HostSession[] = [];

afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
});

function fakePage(end: Transport, tools: BridgeTool[]): Page {
  const bridge = createToolBridge({
    validator: createAjvProvider(),
    tools: () => page.tools,
    guard: 'full-access',
    onToolError: () => {},
  });
  const revisions = () => bridge.revisions();
  const page: Page = {
    tools,
    revisions,
    set(next) {
      page.tools = next;
      bridge.invalidate();
    },
    async push(given) {
      end.send(JSON.stringify(catalogChanged(given ?? (await revisions()))));
    },
  };
  end.onmessage = async (frame) => {
    const message = JSON.parse(frame);
    const response = await bridge.handle(message);
    if (response) end.send(response.frame);
    page.after?.(message);
  };
  return page;
}

async function connect(tools: BridgeTool[]) {
  const [hostEnd, pageEnd] = createLinkedPair();
  const page = fakePage(pageEnd, tools);
  const session = new HostSession({ id: 's1', transport: hostEnd, origin: null, grant: 'read' });
  sessions.push(session);
  await session.ready;
  return { page, session };
}

const ids = (session: HostSession) => session.tools().map((entry) => entry.id);
const make = (names: string[]) => names.map((name) => tool(name));

describe("the host's catalog converges", () => {
  it('a push that lands while a refresh is committing an older state is not skipped', async () => {
    const a = tool('a.one');
    const b = tool('b.two');
    const { page, session } = await connect([a, b]);
    expect(ids(session)).toEqual(['a.one', 'b.two']);
    const both = await page.revisions();
    expect(session.catalog.revision).toBe(both.revision);

    // Honest path: b goes, the push says so, the host follows.
    page.set([a]);
    await page.push();
    await until(() => ids(session).join() === 'a.one');

    // b comes back (the revision the page had before), pushed; the host follows again.
    page.set([a, b]);
    await page.push();
    await until(() => ids(session).join() === 'a.one,b.two');

    // Now b goes and comes back while the host asks: the page answers the host's conditional
    // index with [a] and, in the same tick, is back at [a, b] and pushes that revision. The
    // push reaches the host before the refresh has committed [a]: the host holds [a, b]'s
    // revision still, so the push looks known. Skipping it leaves the host at [a] for good.
    page.after = (message) => {
      if (message.type !== 'tool.query' || !message.payload?.ifRevision) return;
      page.after = undefined;
      page.set([a, b]);
      void page.push(both);
    };
    page.set([a]);
    await page.push();
    await until(() => page.after === undefined);
    await until(() => ids(session).join() === 'a.one,b.two');
    // The barrier: a refresh asked for now runs after every one in flight or queued has
    // committed, and the page answers its conditional query "unchanged" only if none of them
    // took the host back to an older state.
    expect(await session.refresh()).toBe('none');
    expect(ids(session)).toEqual(['a.one', 'b.two']);
    expect(session.catalog.revision).toBe(both.revision);
  });

  // CPU-bound (hundreds of registrations and refreshes): its bound is far past what a loaded machine needs.
  it('registrations in bursts, pushes and the host asking on its own: exactly the page', async () => {
    const { page, session } = await connect(make(['top.own']));
    const names = ['top.own'];
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    for (let burst = 0; burst < 40; burst++) {
      const size = 1 + Math.floor(random() * 40);
      for (let i = 0; i < size; i++) {
        names.push(`frame.t${String(names.length).padStart(4, '0')}`);
        page.set(make(names));
        // The host asks on its own now and then (a call, `toolwire tools`, a poll).
        if (random() < 0.05) void session.refresh().catch(() => {});
        if (random() < 0.3) await Promise.resolve();
      }
      // Sometimes a frame's tools vanish for a moment (a reload) and come back.
      if (random() < 0.2) {
        page.set(make(['top.own']));
        void page.push();
        await Promise.resolve();
        page.set(make(names));
      }
      void page.push();
      // Sometimes the host gets some way between bursts: a few turns of the event loop (the
      // page hashes its revisions off the main thread). How far it gets is the scenario's
      // variety, not something a check waits for.
      if (random() < 0.5) {
        for (let turn = Math.floor(random() * 3); turn >= 0; turn--) {
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    }
    await until(() => ids(session).length === names.length);
    // The barrier, as above: after everything in flight, the host's state is the page's.
    expect(await session.refresh()).toBe('none');
    expect(ids(session)).toEqual([...names].sort());
    expect(session.catalog.revision).toBe((await page.revisions()).revision);
  }, 60_000);

  // CPU-bound (2,500 tools, read twice): its bound is far past what a loaded machine needs.
  it('a page past 1,000 tools that changes between two index pages: the host starts over and holds all', async () => {
    const names = Array.from({ length: 2500 }, (_, i) => `bulk.t${String(i).padStart(4, '0')}`);
    const { page, session } = await connect(make(names));
    // Honest path: all 2,500 through three index pages.
    expect(ids(session)).toEqual(names);
    // The next refresh reads a first page, then the page registers one more tool before the
    // second: that page's cursor is stale, and the refresh reads the index again.
    const pages: string[] = [];
    page.after = (message) => {
      if (message.type !== 'tool.query' || message.payload?.detail !== 'index') return;
      pages.push(message.payload.cursor === '' ? 'first' : 'next');
      if (pages.length === 1) page.set(make([...names, 'bulk.t9999', 'bulk.zlate']));
    };
    page.set(make([...names, 'bulk.t9999']));
    await page.push();
    await until(() => session.catalog.get('bulk.zlate') !== undefined);
    expect(ids(session)).toEqual([...names, 'bulk.t9999', 'bulk.zlate']);
    expect(pages.slice(0, 3)).toEqual(['first', 'next', 'first']);
    expect(session.catalog.revision).toBe((await page.revisions()).revision);
  }, 60_000);
});
