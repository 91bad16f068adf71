import { expect, type Frame, type Page, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';

// Frames in real Chromium over two real origins: the top page on http://localhost:PORT,
// "cross" frames on http://127.0.0.1:PORT. Every row of docs/browser-api.md's scenario table, for both
// layers, plus calls, aborts and frame removal across origins.

const TOP = `http://localhost:${E2E_PORT}`;
const CROSS = `http://127.0.0.1:${E2E_PORT}`;

interface ToolSpec {
  name: string;
  exposedTo?: string[];
  agent?: boolean;
  spec?: boolean;
  specExposedTo?: string[];
  inputSchema?: object;
}
interface FrameSpec {
  id: string;
  origin?: 'same' | 'cross';
  allow?: string;
  tools?: ToolSpec[];
  frames?: FrameSpec[];
}

/** The usual four exposures of a frame's tools, plus one agent-exposed tool. */
function toolsOf(id: string, other = 'https://other.example'): ToolSpec[] {
  return [
    { name: `${id}.own` },
    { name: `${id}.top`, exposedTo: [TOP] },
    { name: `${id}.star`, exposedTo: ['*'] },
    { name: `${id}.other`, exposedTo: [other] },
    { name: `${id}.agent`, exposedTo: ['*'], agent: true },
  ];
}

async function open(page: Page, spec: FrameSpec): Promise<void> {
  await page.goto(`/e2e/pages/frames/top.html#${encodeURIComponent(JSON.stringify(spec))}`);
  await page.waitForFunction(() => (window as any).frameReady === true);
}

/** The frame whose own scenario node has this id (the top's URL mentions every id). */
function specId(url: string): string | undefined {
  try {
    return (JSON.parse(decodeURIComponent(new URL(url).hash.slice(1))) as { id?: string }).id;
  } catch {
    return undefined;
  }
}

function frame(page: Page, id: string): Frame {
  const found = page.frames().find((f) => specId(f.url()) === id);
  if (!found) throw new Error(`no frame ${id}`);
  return found;
}

async function waitFrame(page: Page, id: string): Promise<Frame> {
  await expect.poll(() => page.frames().some((f) => specId(f.url()) === id)).toBe(true);
  const found = frame(page, id);
  await found.waitForFunction(() => (window as any).frameReady === true);
  return found;
}

interface NamesQuery {
  view: 'tools' | 'of' | 'modelContext';
  agentOnly?: boolean;
  path?: string[];
  fromOrigins?: string[];
}

/** The sorted names one view of the top page lists (see namesOf in pages/frames/scenario.ts). */
async function names(page: Page, query: NamesQuery): Promise<string[]> {
  return page.evaluate((q) => (window as any).namesOf(q), query);
}

const TOOLS: NamesQuery = { view: 'tools' };
const AGENTS: NamesQuery = { view: 'tools', agentOnly: true };
const of = (...path: string[]): NamesQuery => ({ view: 'of', path });
const mc = (fromOrigins?: string[]): NamesQuery => ({
  view: 'modelContext',
  ...(fromOrigins ? { fromOrigins } : {}),
});

/**
 * The target side of a cancelled call: `toolcancel` fired for the tool, and its execute saw its
 * signal abort with a default AbortError (never the caller's reason).
 */
async function expectCancelled(target: Page | Frame, tool: string): Promise<void> {
  await expect.poll(() => target.evaluate(() => (window as any).toolcancels)).toEqual([tool]);
  expect(await target.evaluate(() => (window as any).frameLog.at(-1))).toEqual({
    aborted: tool,
    reason: 'AbortError',
  });
}

/** Waits until `target`'s tool has started a call (its execute logged it): a call in flight. */
async function running(target: Page | Frame, tool: string): Promise<void> {
  await expect
    .poll(() =>
      target.evaluate(
        (name) => (window as any).frameLog.some((entry: { tool?: string }) => entry.tool === name),
        tool,
      ),
    )
    .toBe(true);
}

/** The caller aborts its pending call (`w.pending`) with its own reason; what the call answered. */
function abortOwnCall(caller: Page | Frame): Promise<string> {
  return caller.evaluate(() => {
    const w = window as any;
    w.controller.abort(w.reason);
    return w.pending;
  });
}

/** Waits until the frames' handshakes are done, by reading each one directly. */
async function handshakes(page: Page, ...ids: string[]): Promise<void> {
  for (const id of ids) await waitFrame(page, id);
  await page.evaluate(async () => {
    for (const iframe of Array.from(document.querySelectorAll('iframe')))
      await (window as any).tools.of(iframe).getTools();
  });
}

test.describe('generic layer: the scenario table', () => {
  test('row 1: same-origin iframe, no allow: coalesced; of() sees it', async ({ page }) => {
    await open(page, { id: 'top', frames: [{ id: 'f1', origin: 'same', tools: toolsOf('f1') }] });
    await handshakes(page, 'f1');
    // Same origin as the top: every tool is the top's origin's own, whatever else exposedTo lists.
    expect(await names(page, TOOLS)).toEqual([
      'f1.agent',
      'f1.other',
      'f1.own',
      'f1.star',
      'f1.top',
    ]);
    expect(await names(page, AGENTS)).toEqual(['f1.agent']);
    expect(await names(page, of('#f1'))).toEqual([
      'f1.agent',
      'f1.other',
      'f1.own',
      'f1.star',
      'f1.top',
    ]);
  });

  test('row 2: cross-origin iframe, no allow: not coalesced; of() sees what is exposed to top', async ({
    page,
  }) => {
    await open(page, { id: 'top', frames: [{ id: 'f2', origin: 'cross', tools: toolsOf('f2') }] });
    await handshakes(page, 'f2');
    expect(await names(page, TOOLS)).toEqual([]);
    expect(await names(page, AGENTS)).toEqual([]);
    expect(await names(page, of('#f2'))).toEqual(['f2.agent', 'f2.star', 'f2.top']);
  });

  test('row 3: cross-origin iframe with allow="tools": tools exposed to top coalesce', async ({
    page,
  }) => {
    await open(page, {
      id: 'top',
      frames: [{ id: 'f3', origin: 'cross', allow: 'tools', tools: toolsOf('f3') }],
    });
    await handshakes(page, 'f3');
    expect(await names(page, TOOLS)).toEqual(['f3.agent', 'f3.star', 'f3.top']);
    expect(await names(page, AGENTS)).toEqual(['f3.agent']);
    expect(await names(page, of('#f3'))).toEqual(['f3.agent', 'f3.star', 'f3.top']);
  });

  test('row 4: allow="tools \'none\'": never coalesced, even same-origin', async ({ page }) => {
    await open(page, {
      id: 'top',
      frames: [{ id: 'f4', origin: 'same', allow: "tools 'none'", tools: toolsOf('f4') }],
    });
    await handshakes(page, 'f4');
    expect(await names(page, TOOLS)).toEqual([]);
    expect(await names(page, of('#f4'))).toEqual([
      'f4.agent',
      'f4.other',
      'f4.own',
      'f4.star',
      'f4.top',
    ]);
  });

  test('row 5: a granted grandchild in a granted child coalesces transitively', async ({
    page,
  }) => {
    await open(page, {
      id: 'top',
      frames: [
        {
          id: 'c5',
          origin: 'cross',
          allow: 'tools',
          tools: toolsOf('c5'),
          frames: [{ id: 'g5', origin: 'same', allow: 'tools', tools: toolsOf('g5') }],
        },
      ],
    });
    await waitFrame(page, 'g5');
    await expect
      .poll(() => names(page, TOOLS))
      .toEqual(['c5.agent', 'c5.star', 'c5.top', 'g5.agent', 'g5.star', 'g5.top']);
    expect(await names(page, of('#c5', 'frames:0'))).toEqual(['g5.agent', 'g5.star', 'g5.top']);
  });

  test('row 6: a granted grandchild under a refused child: coalescing stops at the refusal', async ({
    page,
  }) => {
    await open(page, {
      id: 'top',
      frames: [
        {
          id: 'c6',
          origin: 'cross',
          tools: toolsOf('c6'),
          frames: [{ id: 'g6', origin: 'same', allow: 'tools', tools: toolsOf('g6') }],
        },
      ],
    });
    await waitFrame(page, 'g6');
    await handshakes(page, 'c6');
    expect(await names(page, TOOLS)).toEqual([]);
    // The grandchild's embedding grants tools, so it coalesces into its parent (not further).
    expect(await names(page, of('#c6'))).toEqual([
      'c6.agent',
      'c6.star',
      'c6.top',
      'g6.agent',
      'g6.star',
      'g6.top',
    ]);
    expect(await names(page, of('#c6', 'frames:0'))).toEqual(['g6.agent', 'g6.star', 'g6.top']);
  });
});

test.describe('generic layer: calls across origins', () => {
  const spec: FrameSpec = {
    id: 'top',
    frames: [{ id: 'f3', origin: 'cross', allow: 'tools', tools: toolsOf('f3') }],
  };

  test('a coalesced cross-origin tool is called with structured values and the caller origin', async ({
    page,
  }) => {
    await open(page, spec);
    await handshakes(page, 'f3');
    const result = await page.evaluate(async () => {
      const tools = (window as any).tools;
      const handle = (await tools.getTools()).find((t: { name: string }) => t.name === 'f3.top');
      const value = await tools.callTool(handle, { n: 1, blob: new Blob(['hi']) });
      const byName = await tools.of(document.getElementById('f3')).callTool('f3.star', { n: 2 });
      return { value, byName, origin: handle.origin };
    });
    expect(result.value).toMatchObject({ from: 'f3', tool: 'f3.top', blob: true });
    expect(result.byName).toMatchObject({ from: 'f3', tool: 'f3.star', echo: { n: 2 } });
    expect(result.origin).toBe(CROSS);
    const log = await frame(page, 'f3').evaluate(() => (window as any).frameLog);
    expect(log).toEqual([
      { tool: 'f3.top', caller: TOP },
      { tool: 'f3.star', caller: TOP },
    ]);
  });

  test('a tool not exposed to the caller cannot be called by name either', async ({ page }) => {
    await open(page, spec);
    await handshakes(page, 'f3');
    const error = await page.evaluate(() =>
      (window as any).tools
        .of(document.getElementById('f3'))
        .callTool('f3.own', {})
        .then(
          () => 'resolved',
          (e: Error) => e.name,
        ),
    );
    expect(error).toBe('NotFoundError');
  });

  test('abort crosses origins: the caller rejects with its reason, the tool sees AbortError and toolcancel', async ({
    page,
  }) => {
    await open(page, spec);
    await handshakes(page, 'f3');
    await page.evaluate(() => {
      const w = window as any;
      w.controller = new AbortController();
      w.pending = w.tools
        .of(document.getElementById('f3'))
        .callTool('f3.top', { hang: true }, { signal: w.controller.signal })
        .then(
          () => 'resolved',
          (e: Error) => e.message,
        );
    });
    const child = frame(page, 'f3');
    await running(child, 'f3.top');
    const outcome = await page.evaluate(() => {
      const w = window as any;
      w.controller.abort(new Error('caller reason'));
      return w.pending;
    });
    expect(outcome).toBe('caller reason');
    await expectCancelled(child, 'f3.top');
  });

  test('removing the target frame mid-call rejects the caller', async ({ page }) => {
    await open(page, spec);
    await handshakes(page, 'f3');
    await page.evaluate(() => {
      const w = window as any;
      w.pending = w.tools
        .of(document.getElementById('f3'))
        .callTool('f3.top', { hang: true })
        .then(
          () => 'resolved',
          (e: Error) => e.name,
        );
    });
    await running(frame(page, 'f3'), 'f3.top');
    const outcome = await page.evaluate(() => {
      document.getElementById('f3')?.remove();
      return (window as any).pending;
    });
    expect(outcome).toBe('NotFoundError');
    expect(await names(page, TOOLS)).toEqual([]);
  });

  test('callTool by name reaches a coalesced cross-origin tool that getTools() lists, as its handle does', async ({
    page,
  }) => {
    await open(page, spec);
    await handshakes(page, 'f3');
    const result = await page.evaluate(async () => {
      const tools = (window as any).tools;
      const name = (p: Promise<unknown>) =>
        p.then(
          () => 'resolved',
          (e: Error) => e.name,
        );
      const listed = (await tools.getTools()).map((t: { name: string }) => t.name);
      // The handle path first, then the same tool by its name.
      const handle = (await tools.getTools()).find((t: { name: string }) => t.name === 'f3.top');
      const byHandle = await tools.callTool(handle, { n: 1 });
      const byName = await tools.callTool('f3.top', { n: 2 });
      const json = await tools.callTool('f3.agent', { n: 3 }, { encoding: 'json' });
      return {
        listed,
        byHandle,
        byName,
        json,
        // Listed nowhere in the top's view (not exposed to its origin): not by name either.
        own: await name(tools.callTool('f3.own', {})),
        other: await name(tools.callTool('f3.other', {})),
      };
    });
    expect(result.listed).toEqual(['f3.agent', 'f3.star', 'f3.top']);
    expect(result.byHandle).toMatchObject({ from: 'f3', tool: 'f3.top', echo: { n: 1 } });
    expect(result.byName).toMatchObject({ from: 'f3', tool: 'f3.top', echo: { n: 2 } });
    expect(result.json).toEqual({ from: 'f3', tool: 'f3.agent', echo: { n: 3 }, blob: false });
    expect(result.own).toBe('NotFoundError');
    expect(result.other).toBe('NotFoundError');
    expect(await frame(page, 'f3').evaluate(() => (window as any).frameLog)).toEqual([
      { tool: 'f3.top', caller: TOP },
      { tool: 'f3.top', caller: TOP },
      { tool: 'f3.agent', caller: TOP },
    ]);
  });

  test("callTool by name: the top document's own tool first, then frames of its origin, then others", async ({
    page,
  }) => {
    await open(page, {
      id: 'top',
      frames: [
        {
          id: 'x1',
          origin: 'cross',
          allow: 'tools',
          tools: [{ name: 'shared', exposedTo: ['*'] }],
        },
        { id: 's1', origin: 'same', tools: [{ name: 'shared' }] },
      ],
    });
    await handshakes(page, 'x1', 's1');
    const call = () =>
      page.evaluate(async () => {
        const result = await (window as any).tools.callTool('shared', {});
        return result === 'top' ? 'top' : (result as { from: string }).from;
      });
    // getTools() lists both, the cross-origin one first (ties by origin: 127.0.0.1 < localhost).
    expect(
      await page.evaluate(async () =>
        (await (window as any).tools.getTools()).map((t: { name: string; origin: string }) => [
          t.name,
          t.origin,
        ]),
      ),
    ).toEqual([
      ['shared', CROSS],
      ['shared', TOP],
    ]);
    // The plain name is the same-origin frame's, as on the wire.
    expect(await call()).toBe('s1');
    await page.evaluate(() =>
      (window as any).toolManager.register({ name: 'shared', execute: () => 'top' }),
    );
    expect(await call()).toBe('top');
    await page.evaluate(() => (window as any).toolManager.unregister('shared'));
    await page.evaluate(() => document.getElementById('s1')?.remove());
    await expect.poll(() => call()).toBe('x1');
    expect(await frame(page, 'x1').evaluate(() => (window as any).frameLog)).toEqual([
      { tool: 'shared', caller: TOP },
    ]);
  });

  test('a frame whose tools do not coalesce is not reachable by name from the top; of(frame) is', async ({
    page,
  }) => {
    await open(page, {
      id: 'top',
      frames: [{ id: 'f2', origin: 'cross', tools: toolsOf('f2') }],
    });
    await handshakes(page, 'f2');
    const outcome = await page.evaluate(async () => {
      const tools = (window as any).tools;
      const direct = await tools.of(document.getElementById('f2')).callTool('f2.star', { n: 1 });
      const byName = await tools.callTool('f2.star', { n: 2 }).then(
        () => 'resolved',
        (e: Error) => e.name,
      );
      return { direct, byName };
    });
    expect(outcome.direct).toMatchObject({ from: 'f2', tool: 'f2.star', echo: { n: 1 } });
    expect(outcome.byName).toBe('NotFoundError');
  });

  test('toolchange fires in the top when a coalesced frame registers a tool', async ({ page }) => {
    await open(page, spec);
    await handshakes(page, 'f3');
    await page.evaluate(() => {
      (window as any).changes = 0;
      (window as any).tools.addEventListener('toolchange', () => (window as any).changes++);
    });
    await frame(page, 'f3').evaluate(() =>
      (window as any).toolManager.register({ name: 'late', exposedTo: ['*'], execute: () => 1 }),
    );
    await expect.poll(() => page.evaluate(() => (window as any).changes)).toBeGreaterThan(0);
    expect(await names(page, TOOLS)).toContain('late');
  });
});

test.describe('progress and cancel across frames (docs/browser-api.md "Progress")', () => {
  // A cross-origin child granted `tools`, and a grandchild of its origin inside it: calls from
  // the top to the grandchild pass through the child.
  const spec: FrameSpec = {
    id: 'top',
    frames: [
      {
        id: 'f3',
        origin: 'cross',
        allow: 'tools',
        tools: toolsOf('f3'),
        frames: [
          {
            id: 'g',
            origin: 'same',
            allow: 'tools',
            tools: [{ name: 'g.star', exposedTo: ['*'] }],
          },
        ],
      },
    ],
  };

  /**
   * Starts a call from the top to `tool` (a name getTools() lists) with `input`, listening for
   * progress: `w.events` gets each report, then the answer or the failure; `w.controller` aborts it.
   */
  async function startCall(page: Page, tool: string, input: object): Promise<void> {
    await page.evaluate(
      async ({ tool, input }) => {
        const w = window as any;
        w.events = [];
        w.controller = new AbortController();
        w.reason = new Error('caller reason');
        const handle = (await w.tools.getTools()).find((t: { name: string }) => t.name === tool);
        w.pending = w.tools
          .callTool(handle, input, {
            signal: w.controller.signal,
            onProgress: (report: { message?: string }) =>
              w.events.push(
                // A long message as its length, for a readable expectation.
                report.message && report.message.length > 40
                  ? { ...report, message: `${report.message.length} units` }
                  : report,
              ),
          })
          .then(
            (value: unknown) => w.events.push({ answer: value }),
            (error: Error) => w.events.push({ failed: error.message }),
          );
      },
      { tool, input },
    );
  }

  const events = (page: Page) => page.evaluate(() => (window as any).events);

  test("a cross-origin frame tool's reports reach the caller, checked, before the answer", async ({
    page,
  }) => {
    await open(page, spec);
    await handshakes(page, 'f3');
    await startCall(page, 'f3.top', {});
    await page.evaluate(() => (window as any).pending);
    // The honest path without reports: only the answer.
    expect(await events(page)).toEqual([
      { answer: expect.objectContaining({ from: 'f3', tool: 'f3.top' }) },
    ]);
    // Cloned to the frame as they are (NaN and Infinity included); the frame checks them.
    await startCall(page, 'f3.top', {
      progress: [
        [1, 4, 'one'],
        [Number.NaN],
        [1],
        [0.5],
        [2, Number.POSITIVE_INFINITY],
        [2, 4, 'x'.repeat(3000)],
        [3],
      ],
    });
    await page.evaluate(() => (window as any).pending);
    expect(await events(page)).toEqual([
      { progress: 1, total: 4, message: 'one' },
      { progress: 2, total: 4, message: '1024 units' },
      { progress: 3 },
      { answer: expect.objectContaining({ from: 'f3', tool: 'f3.top' }) },
    ]);
  });

  test('through a frame in between: reports come up, the abort goes down to the grandchild', async ({
    page,
  }) => {
    await open(page, spec);
    await handshakes(page, 'f3');
    const grandchild = await waitFrame(page, 'g');
    await expect.poll(() => names(page, TOOLS)).toContain('g.star');
    await startCall(page, 'g.star', { progress: [[1, 2, 'started']], hang: true });
    await running(grandchild, 'g.star');
    await expect.poll(() => events(page)).toEqual([{ progress: 1, total: 2, message: 'started' }]);
    await abortOwnCall(page);
    expect(await events(page)).toEqual([
      { progress: 1, total: 2, message: 'started' },
      { failed: 'caller reason' },
    ]);
    await expectCancelled(grandchild, 'g.star');
  });

  test("the caller's abort fires a cross-origin frame tool's signal (the time is reported, not asserted)", async ({
    page,
  }, testInfo) => {
    await open(page, spec);
    await handshakes(page, 'f3');
    const child = frame(page, 'f3');
    const latencies: number[] = [];
    for (let run = 0; run < 5; run++) {
      await child.evaluate(() => {
        const w = window as any;
        w.frameLog = [];
        w.toolcancels.length = 0;
        w.abortedAt = undefined;
      });
      await startCall(page, 'f3.top', { progress: [[1]], hang: true });
      await running(child, 'f3.top');
      await expect.poll(() => events(page)).toEqual([{ progress: 1 }]);
      const abortedAt = await page.evaluate(() => {
        const w = window as any;
        const at = performance.timeOrigin + performance.now();
        w.controller.abort(w.reason);
        return at;
      });
      await expectCancelled(child, 'f3.top');
      const firedAt = await child.evaluate(() => (window as any).abortedAt);
      expect(typeof firedAt).toBe('number');
      latencies.push(firedAt - abortedAt);
      // The tool reported once more after its signal fired: that report reached nobody. A
      // later call's answer on the same port shows anything sent before it has arrived.
      await startCall(page, 'f3.top', {});
      await page.evaluate(() => (window as any).pending);
      expect(await events(page)).toEqual([{ answer: expect.objectContaining({ tool: 'f3.top' }) }]);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const figure = `abort -> frame signal, 5 runs (ms): ${sorted.map((ms) => ms.toFixed(2)).join(', ')}; median ${sorted[2]?.toFixed(2)}`;
    testInfo.annotations.push({ type: 'abort latency', description: figure });
    console.log(figure);
  });
});

test.describe('document.modelContext across frames (the spec)', () => {
  test('double opt-in: a cross-origin child tool is seen only with fromOrigins, and runs', async ({
    page,
  }) => {
    await open(page, {
      id: 'top',
      frames: [
        {
          id: 'm1',
          origin: 'cross',
          allow: 'tools',
          tools: [
            { name: 'm1.exposed', spec: true, specExposedTo: [TOP] },
            { name: 'm1.private', spec: true },
          ],
        },
      ],
    });
    await handshakes(page, 'm1');
    await expect.poll(() => names(page, mc([CROSS]))).toEqual(['m1.exposed']);
    expect(await names(page, mc())).toEqual([]);
    const result = await page.evaluate(async (cross) => {
      const mc = (document as any).modelContext;
      const [tool] = await mc.getTools({ fromOrigins: [cross] });
      return {
        result: await mc.executeTool(tool, { a: 1 }),
        window: tool.window === (document.getElementById('m1') as HTMLIFrameElement).contentWindow,
      };
    }, CROSS);
    expect(result.window).toBe(true);
    expect(JSON.parse(result.result)).toMatchObject({
      from: 'm1',
      tool: 'm1.exposed',
      echo: { a: 1 },
    });
  });

  test('input that fails a cross-origin tool inputSchema is the spec DataError, and the tool does not run', async ({
    page,
  }) => {
    const inputSchema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    await open(page, {
      id: 'top',
      frames: [
        {
          id: 'mv',
          origin: 'cross',
          allow: 'tools',
          tools: [{ name: 'mv.checked', spec: true, specExposedTo: [TOP], inputSchema }],
        },
      ],
    });
    await handshakes(page, 'mv');
    await expect.poll(() => names(page, mc([CROSS]))).toEqual(['mv.checked']);
    const outcome = await page.evaluate(async (cross) => {
      const mc = (document as any).modelContext;
      const [tool] = await mc.getTools({ fromOrigins: [cross] });
      const failure = await mc.executeTool(tool, { n: 'one' }).then(
        () => null,
        (e: DOMException) => ({ name: e.name, message: JSON.parse(e.message) }),
      );
      return { failure, result: JSON.parse(await mc.executeTool(tool, { n: 1 })).echo };
    }, CROSS);
    expect(outcome).toEqual({
      failure: { name: 'DataError', message: { path: '/n', reason: 'type', schemaPath: '/type' } },
      result: { n: 1 },
    });
    const child = await waitFrame(page, 'mv');
    expect(await child.evaluate(() => (window as any).frameLog.length)).toBe(1);
  });

  test('a cross-origin frame without allow gets NotAllowedError and is skipped', async ({
    page,
  }) => {
    await open(page, {
      id: 'top',
      tools: [{ name: 'top.tool', spec: true, specExposedTo: [CROSS] }],
      frames: [{ id: 'm2', origin: 'cross' }],
    });
    const child = await waitFrame(page, 'm2');
    const errors = await child.evaluate(async () => {
      const mc = (document as any).modelContext;
      const name = (p: Promise<unknown>) =>
        p.then(
          () => 'ok',
          (e: Error) => e.name,
        );
      return [
        await name(mc.getTools()),
        await name(mc.registerTool({ name: 'x', description: 'x', execute: () => 1 })),
      ];
    });
    expect(errors).toEqual(['NotAllowedError', 'NotAllowedError']);
  });

  test('a child sees and runs the parent tool exposed to it (upward), with fromOrigins', async ({
    page,
  }) => {
    await open(page, {
      id: 'top',
      tools: [
        { name: 'top.for-child', spec: true, specExposedTo: [CROSS] },
        { name: 'top.private', spec: true },
      ],
      frames: [{ id: 'm3', origin: 'cross', allow: 'tools' }],
    });
    const child = await waitFrame(page, 'm3');
    const outcome = await child.evaluate(async (top) => {
      const mc = (document as any).modelContext;
      const plain = (await mc.getTools()).map((t: { name: string }) => t.name);
      const tools = await mc.getTools({ fromOrigins: [top] });
      const result = await mc.executeTool(tools[0], { up: true });
      return {
        plain,
        names: tools.map((t: { name: string }) => t.name),
        result,
        topWindow: tools[0].window === window.top,
      };
    }, TOP);
    expect(outcome.plain).toEqual([]);
    expect(outcome.names).toEqual(['top.for-child']);
    expect(outcome.topWindow).toBe(true);
    expect(JSON.parse(outcome.result)).toMatchObject({ from: 'top', echo: { up: true } });
    // A modelContext tool's execute gets only {signal} (spec): no caller origin to log.
    expect(await page.evaluate(() => (window as any).frameLog)).toEqual([
      { tool: 'top.for-child', caller: null },
    ]);
  });

  test('aborting a cross-origin executeTool: caller rejects with its reason; target AbortError and toolcancel', async ({
    page,
  }) => {
    await open(page, {
      id: 'top',
      frames: [
        {
          id: 'm4',
          origin: 'cross',
          allow: 'tools',
          tools: [{ name: 'm4.slow', spec: true, specExposedTo: [TOP] }],
        },
      ],
    });
    await handshakes(page, 'm4');
    await expect.poll(() => names(page, mc([CROSS]))).toEqual(['m4.slow']);
    await page.evaluate(async (cross) => {
      const w = window as any;
      const context = (document as any).modelContext;
      const [tool] = await context.getTools({ fromOrigins: [cross] });
      w.controller = new AbortController();
      w.reason = new Error('stop');
      w.pending = context.executeTool(tool, { hang: true }, { signal: w.controller.signal }).then(
        () => 'resolved',
        (e: unknown) => (e === w.reason ? 'own reason' : String(e)),
      );
    }, CROSS);
    const child = frame(page, 'm4');
    await running(child, 'm4.slow');
    const outcome = await abortOwnCall(page);
    expect(outcome).toBe('own reason');
    await expectCancelled(child, 'm4.slow');
  });

  test('a caller frame that navigates away cancels its call in the target', async ({ page }) => {
    await open(page, {
      id: 'top',
      tools: [{ name: 'top.slow', spec: true, specExposedTo: [CROSS] }],
      frames: [{ id: 'm5', origin: 'cross', allow: 'tools' }],
    });
    const child = await waitFrame(page, 'm5');
    await child.evaluate(async (top) => {
      const mc = (document as any).modelContext;
      const [tool] = await mc.getTools({ fromOrigins: [top] });
      void mc.executeTool(tool, { hang: true }).catch(() => {});
    }, TOP);
    await expect.poll(() => page.evaluate(() => (window as any).frameLog.length)).toBe(1);
    await child.evaluate(() => {
      location.href = 'about:blank';
    });
    await expect.poll(() => page.evaluate(() => (window as any).toolcancels)).toEqual(['top.slow']);
  });

  test('a revoked exposure makes a stale tool reject UnknownError', async ({ page }) => {
    await open(page, {
      id: 'top',
      frames: [
        {
          id: 'm6',
          origin: 'cross',
          allow: 'tools',
          tools: [{ name: 'm6.tool', spec: true, specExposedTo: [TOP] }],
        },
      ],
    });
    await handshakes(page, 'm6');
    await expect.poll(() => names(page, mc([CROSS]))).toEqual(['m6.tool']);
    await page.evaluate(async (cross) => {
      (window as any).stale = (
        await (document as any).modelContext.getTools({ fromOrigins: [cross] })
      )[0];
    }, CROSS);
    // Unregister, then register the same name again with no exposure.
    await frame(page, 'm6').evaluate(async () => {
      const w = window as any;
      w.registrations['m6.tool'].abort();
      await (document as any).modelContext.registerTool({
        name: 'm6.tool',
        description: 'now private',
        execute: () => 'x',
      });
    });
    const outcome = await page.evaluate(() =>
      (document as any).modelContext.executeTool((window as any).stale, {}).then(
        () => 'resolved',
        (e: Error) => e.name,
      ),
    );
    expect(outcome).toBe('UnknownError');
  });
});

test.describe('document.modelContext across frames: the other direction and removals', () => {
  const spec = (extra: Partial<FrameSpec> = {}): FrameSpec => ({
    id: 'top',
    tools: [{ name: 'top.slow', spec: true, specExposedTo: [CROSS] }],
    frames: [
      {
        id: 'm7',
        origin: 'cross',
        allow: 'tools',
        tools: [{ name: 'm7.slow', spec: true, specExposedTo: [TOP] }],
      },
    ],
    ...extra,
  });

  test('a child aborts its call into the top: it rejects with its reason; the top sees AbortError and toolcancel', async ({
    page,
  }) => {
    await open(page, spec());
    const child = await waitFrame(page, 'm7');
    await child.evaluate(async (top) => {
      const w = window as any;
      const context = (document as any).modelContext;
      const tool = (await context.getTools({ fromOrigins: [top] })).find(
        (t: { name: string }) => t.name === 'top.slow',
      );
      w.controller = new AbortController();
      w.reason = new Error('child stops');
      w.pending = context.executeTool(tool, { hang: true }, { signal: w.controller.signal }).then(
        () => 'resolved',
        (e: unknown) => (e === w.reason ? 'own reason' : String(e)),
      );
    }, TOP);
    await running(page, 'top.slow');
    const outcome = await abortOwnCall(child);
    expect(outcome).toBe('own reason');
    await expectCancelled(page, 'top.slow');
  });

  test('removing the caller frame cancels its call in the top', async ({ page }) => {
    await open(page, spec());
    const child = await waitFrame(page, 'm7');
    await child.evaluate(async (top) => {
      const mc = (document as any).modelContext;
      const tool = (await mc.getTools({ fromOrigins: [top] })).find(
        (t: { name: string }) => t.name === 'top.slow',
      );
      void mc.executeTool(tool, { hang: true }).catch(() => {});
    }, TOP);
    await expect.poll(() => page.evaluate(() => (window as any).frameLog.length)).toBe(1);
    await page.evaluate(() => document.getElementById('m7')?.remove());
    await expect.poll(() => page.evaluate(() => (window as any).toolcancels)).toEqual(['top.slow']);
  });

  test('removing the target frame rejects the caller with UnknownError', async ({ page }) => {
    await open(page, spec());
    await handshakes(page, 'm7');
    await expect.poll(() => names(page, mc([CROSS]))).toContain('m7.slow');
    await page.evaluate(async (cross) => {
      const context = (document as any).modelContext;
      const tool = (await context.getTools({ fromOrigins: [cross] })).find(
        (t: { name: string }) => t.name === 'm7.slow',
      );
      (window as any).pending = context.executeTool(tool, { hang: true }).then(
        () => 'resolved',
        (e: Error) => e.name,
      );
    }, CROSS);
    await running(frame(page, 'm7'), 'm7.slow');
    const outcome = await page.evaluate(() => {
      document.getElementById('m7')?.remove();
      return (window as any).pending;
    });
    expect(outcome).toBe('UnknownError');
  });
});

test.describe('the subtree cache (docs/browser-api.md "Frames: the subtree cache")', () => {
  // A listing reflects every change that completed in a frame before the listing reached it:
  // each test warms the cache first, then reads once, never polling.
  const tree: FrameSpec = {
    id: 'top',
    frames: [
      {
        id: 'c1',
        origin: 'same',
        tools: [{ name: 'c1.star', exposedTo: ['*'] }],
        frames: [
          {
            id: 'g1',
            origin: 'cross',
            allow: 'tools',
            tools: [{ name: 'g1.star', exposedTo: ['*'] }],
          },
        ],
      },
      { id: 'c2', origin: 'cross', allow: 'tools', tools: [{ name: 'c2.star', exposedTo: ['*'] }] },
    ],
  };

  async function warm(page: Page): Promise<void> {
    await open(page, tree);
    await handshakes(page, 'c1', 'g1', 'c2');
    await expect.poll(() => names(page, TOOLS)).toEqual(['c1.star', 'c2.star', 'g1.star']);
    expect(await names(page, TOOLS)).toEqual(['c1.star', 'c2.star', 'g1.star']);
  }

  test("a grandchild's register() and unregister(): the top's next getTools() reflects each", async ({
    page,
  }) => {
    await warm(page);
    const grandchild = frame(page, 'g1');
    await grandchild.evaluate(() =>
      (window as any).toolManager.register({ name: 'g1.late', exposedTo: ['*'], execute: () => 1 }),
    );
    expect(await names(page, TOOLS)).toEqual(['c1.star', 'c2.star', 'g1.late', 'g1.star']);
    await grandchild.evaluate(() => (window as any).toolManager.unregister('g1.late'));
    expect(await names(page, TOOLS)).toEqual(['c1.star', 'c2.star', 'g1.star']);
    // And for agents only, a listing of its own (its own cache entries).
    await grandchild.evaluate(() =>
      (window as any).toolManager.register({
        name: 'g1.agent',
        exposedTo: ['*'],
        naturalLanguageProperties: { description: 'an agent tool' },
        execute: () => 1,
      }),
    );
    expect(await names(page, AGENTS)).toEqual(['g1.agent']);
    expect(await names(page, TOOLS)).toEqual(['c1.star', 'c2.star', 'g1.agent', 'g1.star']);
  });

  test("a tool's availability is as it is now, in every listing", async ({ page }) => {
    await warm(page);
    const child = frame(page, 'c2');
    await child.evaluate(() => {
      (window as any).gateClosed = false;
      return (window as any).toolManager.register({
        name: 'c2.gated',
        exposedTo: ['*'],
        availability: () =>
          (window as any).gateClosed ? { available: false, reason: 'closed for now' } : true,
        execute: () => 1,
      });
    });
    const runtime = () =>
      page.evaluate(async () => {
        const tools = (window as any).tools;
        const gated = (await tools.getTools()).find((t: { name: string }) => t.name === 'c2.gated');
        return tools.sourceOf(gated)?.descriptor?.runtime;
      });
    expect(await runtime()).toBeNull();
    await child.evaluate(() => {
      (window as any).gateClosed = true;
    });
    expect(await runtime()).toEqual({ available: false, reason: 'closed for now' });
    await child.evaluate(() => {
      (window as any).gateClosed = false;
    });
    expect(await runtime()).toBeNull();
  });

  test('a removed frame and a navigated frame: gone from the next getTools()', async ({ page }) => {
    await warm(page);
    // Removed (and the listing started in the same task): its subtree goes with it.
    const afterRemoval = await page.evaluate(async () => {
      document.querySelectorAll('iframe')[0]?.remove();
      return ((await (window as any).tools.getTools()) as { name: string }[])
        .map((t) => t.name)
        .sort();
    });
    expect(afterRemoval).toEqual(['c2.star']);
    // Navigated: once the new document is up, only its tools are listed.
    await page.evaluate(
      (url) => {
        (document.querySelector('iframe') as HTMLIFrameElement).src = url;
      },
      `${CROSS}/e2e/pages/frames/frame.html?again#${encodeURIComponent(JSON.stringify({ id: 'c3', tools: [{ name: 'c3.star', exposedTo: ['*'] }] }))}`,
    );
    await handshakes(page, 'c3');
    expect(await names(page, TOOLS)).toEqual(['c3.star']);
  });
});
