import { expect, type Frame, type Page, test } from '@playwright/test';
import { MAX_TOOLS_PER_FRAME } from '../packages/polyfill/src/frames/sanitize.js';
import { E2E_PORT } from '../playwright.config.js';
import type { Answer, AttackReport, FloodReport, Hostile } from './pages/frames/hostile.js';

// Security is a fixture (docs/style.md 14; issue 5 "Tests"). The top page (http://localhost:PORT) runs
// the polyfill with tools of every exposure and embeds an honest sibling; then a hostile frame
// (pages/frames/hostile.ts, no polyfill) joins and attacks with the bridge's exact message
// shapes: forged window messages, forged requests after a real handshake, floods of 10,000,
// prototype-pollution payloads, replayed and stolen ports, forged welcomes to the sibling.
// Each test lists the exact tool names that reached the attacker, checks the top's frameLog
// for calls, and ends with the same aftermath: no pageerror in any frame, no polluted prototype.
//
// The five holes this suite first found (each named "Was a hole" below) are fixed in
// packages/polyfill/src/frames/ (node.ts, sanitize.ts); their tests now guard the fixes.

const TOP = `http://localhost:${E2E_PORT}`;
const CROSS = `http://127.0.0.1:${E2E_PORT}`;

const TOP_TOOLS = [
  { name: 'top.own' },
  { name: 'top.top', exposedTo: [TOP] },
  { name: 'top.star', exposedTo: ['*'] },
  { name: 'top.cross', exposedTo: [CROSS] },
  { name: 'top.other', exposedTo: ['https://other.example'] },
  { name: 'top.agent', exposedTo: ['*'], agent: true },
  { name: 'top.agent-private', agent: true },
  { name: 'top.spec-cross', spec: true, specExposedTo: [CROSS] },
  { name: 'top.spec-private', spec: true },
];
const SIBLING = {
  id: 'sib',
  origin: 'same',
  allow: 'tools',
  tools: [
    { name: 'sib.own' },
    { name: 'sib.top', exposedTo: [TOP] },
    { name: 'sib.star', exposedTo: ['*'] },
    { name: 'sib.agent', exposedTo: ['*'], agent: true },
  ],
};
/** Everything the top itself lists: its tools, the probe, and the granted sibling's. */
const TOP_SEES = [
  'sib.agent',
  'sib.own',
  'sib.star',
  'sib.top',
  'top.agent',
  'top.agent-private',
  'top.cross',
  'top.other',
  'top.own',
  'top.probe',
  'top.spec-cross',
  'top.spec-private',
  'top.star',
  'top.top',
];
/**
 * What a child at CROSS may read upward at all: document.modelContext's tree listing, which
 * holds agent-exposed tools exposed to its origin (or '*'). Nothing else of the page's.
 */
const CROSS_MAY_SEE = ['sib.agent', 'top.agent', 'top.probe', 'top.spec-cross'];
/** Exposed to the top's origin only (or to another origin): never for CROSS, never run for it. */
const NEVER_FOR_CROSS = [
  'sib.own',
  'sib.top',
  'top.agent-private',
  'top.other',
  'top.own',
  'top.spec-private',
  'top.top',
];

// ---- fixtures -------------------------------------------------------------------------------

let pageErrors: string[] = [];

test.beforeEach(({ page }) => {
  pageErrors = [];
  // 'pageerror' covers every frame of the page, cross-origin (out-of-process) ones included.
  page.on('pageerror', (error) => pageErrors.push(`${error.name}: ${error.message}`));
});

/** A tool with a web-typed inputSchema, so pollution payloads go through JSON lifting. */
async function registerProbe(page: Page): Promise<void> {
  await page.evaluate(() =>
    (window as any).toolManager.register({
      name: 'top.probe',
      exposedTo: ['*'],
      naturalLanguageProperties: { description: 'takes web types' },
      inputSchema: {
        type: 'object',
        properties: {
          when: { webType: 'Date' },
          nested: { type: 'object' },
          list: { type: 'array' },
        },
      },
      execute: (input: Record<string, unknown>, context: any) => {
        (window as any).frameLog.push({
          tool: 'top.probe',
          caller: context?.caller?.origin ?? null,
          plainPrototype: Object.getPrototypeOf(input) === Object.prototype,
          inherited: (input as { polluted?: unknown }).polluted ?? null,
        });
        return { ok: true };
      },
    }),
  );
}

/** A frame's path, or '' while it has no URL yet. */
function pathOf(frame: Frame): string {
  return URL.canParse(frame.url()) ? new URL(frame.url()).pathname : '';
}

function hostileFrame(page: Page): Frame | undefined {
  return page.frames().find((f) => pathOf(f).endsWith('/hostile.html'));
}

/**
 * The hostile frame's barrier (hostile.ts `barrier`), answered in the top: a marker the frame
 * posts by window message comes back on the window, and on every port that came with an earlier
 * window message, after whatever the top's polyfill sent before.
 */
async function installEcho(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as any;
    if (w.echoInstalled) return;
    w.echoInstalled = true;
    const held: MessagePort[] = [];
    window.addEventListener('message', (event) => {
      if (event.data?.tag !== 'toolwire.e2e/barrier') {
        held.push(...event.ports);
        return;
      }
      const marker = { tag: 'toolwire.e2e/barrier', id: event.data.id };
      for (const port of held.splice(0)) port.postMessage(marker);
      (event.source as Window).postMessage(marker, '*');
    });
  });
}

/** Embeds the hostile frame in the top, at `origin`, with the given `allow` attribute. */
async function addHostile(page: Page, origin: string, allow: string | undefined): Promise<Frame> {
  await installEcho(page);
  await page.evaluate(
    ({ origin, allow }) => {
      const iframe = document.createElement('iframe');
      iframe.id = 'hostile';
      if (allow !== undefined) iframe.setAttribute('allow', allow);
      iframe.src = `${origin}/e2e/pages/frames/hostile.html`;
      document.body.append(iframe);
    },
    { origin, allow },
  );
  await expect.poll(() => hostileFrame(page) !== undefined).toBe(true);
  const frame = hostileFrame(page) as Frame;
  await frame.waitForFunction(() => (window as any).hostileReady === true);
  return frame;
}

/**
 * The usual scene: the top with TOP_TOOLS and the probe, a granted same-origin sibling, then the
 * hostile frame at CROSS, handshake done (so it holds a real port).
 */
async function scene(
  page: Page,
  options: { allow?: string | undefined; handshake?: boolean } = { allow: 'tools' },
): Promise<Frame> {
  const spec = { id: 'top', tools: TOP_TOOLS, frames: [SIBLING] };
  await page.goto(`/e2e/pages/frames/top.html#${encodeURIComponent(JSON.stringify(spec))}`);
  await page.waitForFunction(() => (window as any).frameReady === true);
  await registerProbe(page);
  await expect.poll(() => topNames(page)).toEqual(TOP_SEES);
  const hostile = await addHostile(page, CROSS, options.allow);
  if (options.handshake !== false) await attack(hostile, (h) => h.handshake());
  return hostile;
}

/** Runs one attack in the hostile frame: a function of its `window.hostile`, and one argument. */
async function attack<T, A = undefined>(
  hostile: Frame,
  run: (h: Hostile, arg: A) => T | Promise<T>,
  arg?: A,
): Promise<T> {
  const handle = await hostile.evaluateHandle(() => (window as any).hostile as Hostile);
  try {
    return (await handle.evaluate(run as any, arg)) as T;
  } finally {
    await handle.dispose();
  }
}

function report(hostile: Frame): Promise<AttackReport> {
  return hostile.evaluate(() => (window as any).hostile.report());
}

/** Tool names of other origins found in anything the hostile frame received. */
function namesReceived(got: AttackReport): string[] {
  return [
    ...new Set(
      got.descriptors
        .filter((entry) => !entry.startsWith(`${CROSS} `))
        .map((entry) => entry.slice(entry.indexOf(' ') + 1)),
    ),
  ].sort();
}

async function topNames(page: Page): Promise<string[]> {
  return page.evaluate(async () =>
    (await (window as any).tools.getTools()).map((t: { name: string }) => t.name).sort(),
  );
}

type LogEntry = { tool?: string; caller?: string | null; aborted?: string };

function frameLog(frame: Page | Frame): Promise<LogEntry[]> {
  return frame.evaluate(() => (window as any).frameLog);
}

function siblingFrame(page: Page): Frame {
  const found = page.frames().find((f) => pathOf(f).endsWith('/frame.html'));
  if (!found) throw new Error('no sibling frame');
  return found;
}

const nameOf = (answer: Answer) =>
  answer.timeout ? 'timeout' : answer.ok ? 'ok' : (answer.error?.name ?? '?');

/** What every test ends with: nothing threw anywhere, no prototype polluted, the fixture sane. */
async function aftermath(page: Page, hostile?: Frame): Promise<void> {
  for (const frame of page.frames()) {
    const polluted = await frame.evaluate(() => ({
      own: Object.hasOwn(Object.prototype, 'polluted'),
      read: (Object.prototype as { polluted?: unknown }).polluted ?? null,
      fresh: ({} as { polluted?: unknown }).polluted ?? null,
    }));
    expect(polluted, `Object.prototype in ${frame.url()}`).toEqual({
      own: false,
      read: null,
      fresh: null,
    });
  }
  if (hostile) expect((await report(hostile)).errors).toEqual([]);
  expect(pageErrors).toEqual([]);
}

// ---- forged window messages -------------------------------------------------------------------

test.describe('forged window messages', () => {
  test('bridge messages posted by window.postMessage instead of the port get no answer and run nothing', async ({
    page,
  }) => {
    const hostile = await scene(page);
    const outcome = await attack(hostile, (h) => h.forgeWindowMessages());
    expect(outcome).toEqual({
      forged: 13,
      windowAnswers: 0,
      answersOnAttachedPorts: 0,
      answersOnLink: 0,
      // Its forged window `bye` did not close the real link either.
      linkStillWorks: true,
    });
    const got = await report(hostile);
    // One welcome (the real handshake); the near-miss hellos got none.
    expect(got.windowFromParent).toEqual({ welcome: 1 });
    expect(await frameLog(page)).toEqual([]);
    expect(await frameLog(siblingFrame(page))).toEqual([]);
    expect(await topNames(page)).toEqual(TOP_SEES);
    await aftermath(page, hostile);
  });

  for (const variant of [
    { title: 'from a cross-origin frame', origin: CROSS, steal: false },
    // Same origin as the top: the origin check passes, so only `event.source !== parent` stops it.
    { title: "from a frame of the top's own origin", origin: TOP, steal: false },
    { title: 'carrying real ports stolen from the top', origin: CROSS, steal: true },
  ]) {
    test(`forged welcomes to a loading sibling are ignored (${variant.title})`, async ({
      page,
    }) => {
      const spec = { id: 'top', tools: TOP_TOOLS };
      await page.goto(`/e2e/pages/frames/top.html#${encodeURIComponent(JSON.stringify(spec))}`);
      await page.waitForFunction(() => (window as any).frameReady === true);
      const hostile = await addHostile(page, variant.origin, 'tools');
      await attack(hostile, (h) => h.handshake());
      // To make the race certain, the top holds back its real welcome: while held, its polyfill
      // does not count the sibling's iframe among its own (so it ignores the sibling's hello),
      // and the test counts the forged welcomes that reach the sibling, listening, meanwhile.
      // Then the held hello is handed to the polyfill, which sends the one real welcome.
      await page.evaluate(() => {
        const w = window as any;
        w.heldHello = null;
        w.forgedWhileHeld = 0;
        w.realWelcomes = 0;
        const querySelectorAll = document.querySelectorAll;
        (document as any).querySelectorAll = function (this: Document, selectors: string) {
          const found = [...querySelectorAll.call(this, selectors)];
          return selectors === 'iframe' ? found.filter((element) => element.id !== 'sib') : found;
        };
        addEventListener('message', (event: MessageEvent) => {
          const sibling = (document.getElementById('sib') as HTMLIFrameElement | null)
            ?.contentWindow;
          if (!sibling || event.source !== sibling || event.data?.kind !== 'hello') return;
          if (w.heldHello) return;
          w.heldHello = { data: event.data, origin: event.origin, source: event.source };
          // The sibling's polyfill listens already: it said hello after adding its listener.
          sibling.addEventListener('message', (welcome: MessageEvent) => {
            if (welcome.data?.kind !== 'welcome') return;
            if (welcome.source === window) w.realWelcomes++;
            else w.forgedWhileHeld++;
          });
        });
        w.releaseHello = () => {
          delete (document as any).querySelectorAll;
          dispatchEvent(new MessageEvent('message', w.heldHello));
        };
      });
      await attack(hostile, (h, steal) => h.startWelcomeSpam({ steal }), variant.steal);
      // The sibling loads while the spam runs.
      await page.evaluate((sibling) => {
        const iframe = document.createElement('iframe');
        iframe.id = sibling.id;
        iframe.setAttribute('allow', sibling.allow);
        iframe.src = `${location.origin}/e2e/pages/frames/frame.html#${encodeURIComponent(JSON.stringify(sibling))}`;
        document.body.append(iframe);
      }, SIBLING);
      await page.waitForFunction(() => (window as any).heldHello !== null);
      await page.waitForFunction(() => (window as any).forgedWhileHeld >= 20);
      const forgedWhileHeld: number = await page.evaluate(() => {
        const counted = (window as any).forgedWhileHeld;
        (window as any).releaseHello();
        return counted;
      });
      const sibling = siblingFrame(page);
      await sibling.waitForFunction(() => (window as any).frameReady === true);
      // The sibling's link is the top's: the top reads it and it coalesces.
      await expect
        .poll(() =>
          page.evaluate(async () =>
            (await (window as any).tools.of(document.getElementById('sib')).getTools())
              .map((t: { name: string }) => t.name)
              .sort(),
          ),
        )
        .toEqual(['sib.agent', 'sib.own', 'sib.star', 'sib.top']);
      const spam = await attack(hostile, (h) => h.stopWelcomeSpam());
      const got = await report(hostile);
      expect(await page.evaluate(() => (window as any).realWelcomes)).toBe(1);
      test.info().annotations.push({
        type: 'spam',
        description: `${forgedWhileHeld} forged welcomes reached the listening sibling before its real one; ${spam.sent} sent, ${spam.stolen} real ports passed on`,
      });
      expect(spam.sent).toBeGreaterThan(100);
      // A hello over its live link gets no new welcome, so it has at most its own port to pass on.
      if (variant.steal) expect(spam.stolen).toBeLessThanOrEqual(1);
      // Nothing ever came back on a port it slipped to the sibling; the sibling never answered
      // its hellos either.
      expect(got.forgedPortMessages).toEqual([]);
      expect(got.windowFromOthers).toBe(0);
      expect(await topNames(page)).toEqual(
        [...TOP_SEES.filter((name) => name !== 'top.probe')].sort(),
      );
      expect(await frameLog(sibling)).toEqual([]);
      await aftermath(page, hostile);
    });
  }
});

// ---- a hostile child with a real port -------------------------------------------------------

test.describe('a hostile child after a real handshake', () => {
  test('claiming the top as caller or forging via, it sees only what its own origin may', async ({
    page,
  }) => {
    const hostile = await scene(page);
    const answers = await attack(
      hostile,
      async (h, { top, cross }) => {
        const lists: Record<string, Answer> = {};
        lists.honest = await h.ask(h.shapes.treeList(cross, [], [top]));
        lists.callerTop = await h.ask(h.shapes.treeList(top));
        lists.callerTopViaTop = await h.ask(h.shapes.treeList(top, [top], [top]));
        lists.callerTopViaStar = await h.ask(h.shapes.treeList(top, ['*'], [top, cross]));
        lists.callerOther = await h.ask(h.shapes.treeList('https://other.example', [], [top]));
        return lists;
      },
      { top: TOP, cross: CROSS },
    );
    const listed = (answer: Answer | undefined) =>
      ((answer?.value ?? []) as { name: string }[]).map((tool) => tool.name).sort();
    // Honest, it gets exactly the agent tools exposed to its origin (the double opt-in named the
    // top's origin).
    expect(answers.honest?.ok).toBe(true);
    expect(listed(answers.honest)).toEqual(CROSS_MAY_SEE);
    // Whatever it claims, the top takes its attested origin as the caller: never more than that.
    for (const key of ['callerTop', 'callerTopViaTop', 'callerTopViaStar', 'callerOther']) {
      const names = listed(answers[key]);
      for (const name of names) expect(CROSS_MAY_SEE, `${key} listed ${name}`).toContain(name);
    }
    expect(listed(answers.callerTop)).toEqual(CROSS_MAY_SEE);
    // Claiming another origin changes nothing: a child's claim is replaced by its own origin.
    expect(listed(answers.callerOther)).toEqual(CROSS_MAY_SEE);
    const got = await report(hostile);
    expect(namesReceived(got)).toEqual(CROSS_MAY_SEE);
    expect(await frameLog(page)).toEqual([]);
    await aftermath(page, hostile);
  });

  test('downward-only ops (list, call) sent up the port are refused', async ({ page }) => {
    const hostile = await scene(page);
    const answers = await attack(
      hostile,
      async (h, top) => ({
        list: await h.ask(h.shapes.list(top)),
        listRouted: await h.ask({ ...h.shapes.list(top), route: [0] }),
        call: await h.ask(h.shapes.call(top, 'top.star')),
        callRouted: await h.ask({ ...h.shapes.call(top, 'sib.star'), route: [0] }),
      }),
      TOP,
    );
    expect(Object.fromEntries(Object.entries(answers).map(([k, v]) => [k, nameOf(v)]))).toEqual({
      list: 'NotAllowedError',
      listRouted: 'NotAllowedError',
      call: 'NotAllowedError',
      callRouted: 'NotAllowedError',
    });
    expect(namesReceived(await report(hostile))).toEqual([]);
    expect(await frameLog(page)).toEqual([]);
    expect(await frameLog(siblingFrame(page))).toEqual([]);
    await aftermath(page, hostile);
  });

  test('tools not exposed to its origin never run, whatever caller, via, origin or route it claims', async ({
    page,
  }) => {
    const hostile = await scene(page);
    const answers = await attack(
      hostile,
      async (h, { top, names }) => {
        const out: Record<string, string> = {};
        const name = (answer: Answer) =>
          answer.timeout ? 'timeout' : answer.ok ? 'ok' : (answer.error?.name ?? '?');
        for (const tool of names) {
          const route = tool.startsWith('sib.') ? [0] : [];
          const claims: [string, Parameters<Hostile['shapes']['treeCall']>[2]][] = [
            ['spec', { route }],
            ['spec-via-top', { route, via: [top] }],
            ['generic', { route, origin: null, encoding: 'structured' }],
          ];
          for (const [label, options] of claims) {
            out[`${tool} ${label}`] = name(await h.ask(h.shapes.treeCall(top, tool, options)));
          }
        }
        return out;
      },
      { top: TOP, names: NEVER_FOR_CROSS },
    );
    for (const [key, outcome] of Object.entries(answers))
      expect(['NotFoundError', 'UnknownError', 'NotAllowedError'], key).toContain(outcome);
    const ran = [...(await frameLog(page)), ...(await frameLog(siblingFrame(page)))];
    expect(ran).toEqual([]);
    expect(namesReceived(await report(hostile))).toEqual([]);
    await aftermath(page, hostile);
  });

  // Was a hole (caller forgery): a tree-call's `caller` is the child's say-so, and node.ts #serveCall
  // hands it to the tool as `context.caller.origin` (and uses it for the exposure check beside
  // `via`). A frame at 127.0.0.1 calls top.agent claiming caller http://localhost, and the tool
  // is told the call came from its own origin. Expected: the attested origin (the link's).
  test('a tool it may call is told its attested origin, not the caller it claims', async ({
    page,
  }) => {
    const hostile = await scene(page);
    const answer = await attack(
      hostile,
      (h, top) => h.ask(h.shapes.treeCall(top, 'top.agent')),
      TOP,
    );
    expect(answer.ok).toBe(true);
    expect(await frameLog(page)).toEqual([{ tool: 'top.agent', caller: CROSS }]);
  });

  // Was a hole (generic call smuggled upward): a `tree-call` with `origin: null` (which no honest
  // frame sends: callSpec always names the owner's origin) is served at the top as a generic
  // call: node.ts #serveCall takes `origin === null` as "not spec" and runs runGeneric. So a
  // child runs a parent's tool that is not agent-exposed (top.star, top.cross), by a path the
  // generic layer only has downward ("Calls come down from the parent frame").
  test('a generic call smuggled upward as tree-call with origin null is refused', async ({
    page,
  }) => {
    const hostile = await scene(page);
    const answers = await attack(
      hostile,
      async (h, cross) => ({
        star: await h.ask(h.shapes.treeCall(cross, 'top.star', { origin: null })),
        cross: await h.ask(
          h.shapes.treeCall(cross, 'top.cross', { origin: null, encoding: 'structured' }),
        ),
        sibling: await h.ask(h.shapes.treeCall(cross, 'sib.star', { origin: null, route: [0] })),
      }),
      CROSS,
    );
    expect([answers.star.ok, answers.cross.ok, answers.sibling.ok]).toEqual([false, false, false]);
    expect([...(await frameLog(page)), ...(await frameLog(siblingFrame(page)))]).toEqual([]);
  });

  test('without allow="tools": the welcome says not allowed; unexposed tools still never run', async ({
    page,
  }) => {
    const hostile = await scene(page, { allow: undefined, handshake: false });
    expect(await attack(hostile, (h) => h.handshake())).toEqual({ allowed: false, ports: 1 });
    const answers = await attack(
      hostile,
      async (h, { top, names }) => {
        const out: Answer[] = [];
        for (const tool of names) out.push(await h.ask(h.shapes.treeCall(top, tool)));
        return out;
      },
      { top: TOP, names: NEVER_FOR_CROSS },
    );
    expect(answers.filter((answer) => answer.ok)).toEqual([]);
    expect(await frameLog(page)).toEqual([]);
    // Its embedding grants nothing: none of its tools coalesce into the top.
    expect(await topNames(page)).toEqual(TOP_SEES);
    await aftermath(page, hostile);
  });

  // Was a hole (permission enforced only by the asking frame): a frame whose embedding does not grant
  // `tools` is told so (welcome `allowed: false`), and an honest polyfill then refuses its own
  // document.modelContext calls. But the top serves `tree-list` and `tree-call` from that link
  // anyway: node.ts #serve checks `this.#allowed` (the serving frame's own permission), never
  // `link.allowed`. The hostile frame lists top.agent, top.probe, top.spec-cross and sib.agent
  // and runs them. Expected (docs/browser-api.md "Permissions": NotAllowedError, skipped): nothing.
  test('without allow="tools": tree-list and tree-call are refused', async ({ page }) => {
    const hostile = await scene(page, { allow: undefined });
    const answers = await attack(
      hostile,
      async (h, { top, cross }) => ({
        list: await h.ask(h.shapes.treeList(cross, [], [top])),
        call: await h.ask(h.shapes.treeCall(cross, 'top.agent')),
        callSibling: await h.ask(h.shapes.treeCall(cross, 'sib.agent', { route: [0] })),
      }),
      { top: TOP, cross: CROSS },
    );
    expect(namesReceived(await report(hostile))).toEqual([]);
    expect(answers.call.ok).not.toBe(true);
    expect([...(await frameLog(page)), ...(await frameLog(siblingFrame(page)))]).toEqual([]);
  });

  test('a replayed port is dead after a new handshake, and its bye does not close the new link', async ({
    page,
  }) => {
    const hostile = await scene(page, { allow: 'tools', handshake: false });
    const outcome = await attack(hostile, (h) => h.replayPort());
    expect(nameOf(outcome.first)).toBe('ok');
    expect(outcome.old).toEqual({ timeout: true });
    expect(nameOf(outcome.fresh)).toBe('ok');
    expect(namesReceived(await report(hostile))).toEqual(CROSS_MAY_SEE);
    expect(await frameLog(page)).toEqual([]);
    await aftermath(page, hostile);
  });

  test('malformed res messages, for ids it never got, are dropped', async ({ page }) => {
    const hostile = await scene(page);
    const outcome = await attack(
      hostile,
      async (h, cross) => {
        const tag = 'toolwire.frames/1';
        const forged = [
          { tag, kind: 'res' },
          { tag, kind: 'res', id: '1', ok: true, value: [] },
          { tag, kind: 'res', id: Number.NaN, ok: true, value: [] },
          { tag, kind: 'res', id: -1, ok: false, error: null },
          { tag, kind: 'res', id: 1.5, ok: false, error: 'not a record' },
          { tag, kind: 'res', id: 1e12, ok: false, error: { name: 'ToolExecutionError' } },
          { tag, kind: 'res', id: 2, ok: 'yes', value: [] },
          { tag, kind: 'res', id: 3, ok: false, error: { name: '<script>', message: 1 } },
        ];
        for (const message of forged) h.send(message);
        // Answers for every id the top might use next, each carrying forged tools.
        for (let id = 0; id < 2000; id++) {
          h.send({
            tag,
            kind: 'res',
            id,
            ok: true,
            value: [{ name: 'forged.unsolicited', origin: cross, key: 1, route: [] }],
          });
        }
        // Same port, same order: once this is answered, everything above has been handled.
        return h.ask(h.shapes.treeList(cross));
      },
      CROSS,
    );
    expect(outcome.ok).toBe(true);
    const names = await topNames(page);
    expect(names).not.toContain('forged.unsolicited');
    expect(names).toEqual(TOP_SEES);
    expect(await frameLog(page)).toEqual([]);
    await aftermath(page, hostile);
  });

  // Was a hole (descriptor origin spoofing): a child's answer to the top's `list` is trusted for each
  // tool's `origin`; sanitize.ts only checks that it is some trustworthy origin. The
  // hostile frame (127.0.0.1, no frames of its own) reports its tools as http://localhost's
  // ("forged.as-parent", and a second "top.own") and as https://bank.example's; the top lists
  // them so in tools.getTools(), tools.of(frame).getTools() and modelContext.getTools() (where
  // the fromOrigins double opt-in is then judged on the forged origin). Expected: a tool owned
  // by the frame itself (route []) carries the link's attested origin, or is dropped.
  test('its list answers cannot pass its tools off as another origin', async ({ page }) => {
    const hostile = await scene(page);
    await attack(hostile, (h) => h.setListMode('impersonate'));
    const listed = await page.evaluate(async (cross) => {
      const pairs = (list: { name: string; origin: string }[]) =>
        list.map((tool) => `${tool.origin} ${tool.name}`).sort();
      const tools = (window as any).tools;
      return {
        of: pairs(await tools.of(document.getElementById('hostile')).getTools()),
        all: pairs(await tools.getTools()),
        modelContext: pairs(
          await (document as any).modelContext.getTools({ fromOrigins: [cross] }),
        ),
      };
    }, CROSS);
    expect(
      listed.of.every((pair) => pair.startsWith(`${CROSS} `)),
      listed.of.join(', '),
    ).toBe(true);
    expect(listed.all.filter((pair) => pair === `${TOP} top.own`)).toHaveLength(1);
    expect(listed.modelContext.filter((pair) => pair.startsWith('https://bank.example'))).toEqual(
      [],
    );
  });

  test('its progress reports: only checked ones, for the pending call that asked, reach the caller', async ({
    page,
  }) => {
    const hostile = await scene(page);
    await attack(hostile, (h) => h.setCallMode('progress'));
    const answers = await page.evaluate(async () => {
      const w = window as any;
      const target = w.tools.of(document.getElementById('hostile'));
      w.progressSeen = [];
      const listening = await target.callTool(
        'hostile.tool',
        {},
        {
          onProgress: (report: { message?: string }) =>
            w.progressSeen.push({
              keys: Object.keys(report).join(','),
              ...report,
              message:
                report.message && report.message.length > 40
                  ? `${report.message.length} units`
                  : report.message,
            }),
        },
      );
      // A call that does not listen: the same lies arrive, with nobody to deliver them to.
      const plain = await target.callTool('hostile.tool', {});
      return { listening, plain };
    });
    expect(answers).toEqual({ listening: { done: true }, plain: { done: true } });
    // Everything it sent, after the answers too, has been handled in the top.
    await expect.poll(async () => (await report(hostile)).progressSequences).toBe(2);
    expect(await page.evaluate(() => (window as any).progressSeen)).toEqual([
      { keys: 'progress,total,message', progress: 1, total: 4, message: 'one' },
      { keys: 'progress,total,message', progress: 2, total: 4, message: '1024 units' },
    ]);
    expect((await report(hostile)).callRequests).toEqual([{ progress: true }, { progress: null }]);
    await aftermath(page, hostile);
  });

  test('prototype-pollution payloads pollute no frame', async ({ page }) => {
    const hostile = await scene(page);
    const answers = await attack(hostile, (h) => h.pollute());
    const outcome = Object.fromEntries(
      Object.entries(answers).map(([key, answer]) => [key, nameOf(answer)]),
    );
    // The payloads were read, not just dropped: the request-shaped ones were served.
    expect(outcome).toMatchObject({
      requestRecord: 'ok',
      messageRecord: 'ok',
      'name:__proto__': 'UnknownError',
      'name:constructor': 'UnknownError',
      'name:hasOwnProperty': 'UnknownError',
      'name:toString': 'UnknownError',
      'input:top.agent': 'ok',
      'input-nested:top.agent': 'ok',
      'input:top.probe': 'ok',
      'input-nested:top.probe': 'ok',
    });
    // The tools it may call ran with the payload as plain data (own keys, plain prototype).
    const probes = (await frameLog(page)).filter((entry) => entry.tool === 'top.probe');
    expect(probes).toHaveLength(2);
    for (const probe of probes)
      expect(probe).toMatchObject({ plainPrototype: true, inherited: null });
    // Tool descriptors carrying the payload, read by the top.
    await attack(hostile, (h) => h.setListMode('pollute'));
    const listed = await page.evaluate(async () => {
      const tools = await (window as any).tools.of(document.getElementById('hostile')).getTools();
      return tools.map((tool: { name: string; annotations?: object }) => ({
        name: tool.name,
        annotationsPrototype:
          tool.annotations === undefined ||
          Object.getPrototypeOf(tool.annotations) === Object.prototype,
      }));
    });
    expect(listed.length).toBeGreaterThan(0);
    for (const tool of listed) expect(tool.annotationsPrototype, tool.name).toBe(true);
    await page.evaluate(() => (window as any).tools.getTools());
    expect(namesReceived(await report(hostile))).toEqual(CROSS_MAY_SEE);
    await aftermath(page, hostile);
  });
});

// ---- origins, routes and sizes in its listings (issue 13, part 8) ----------------------------

/** Every view of the top that holds the hostile frame's tools, as sorted `origin name` pairs. */
async function listings(page: Page): Promise<Record<string, string[]>> {
  return page.evaluate(async (cross) => {
    const w = window as any;
    const pairs = async (read: () => Promise<{ name: string; origin: string }[]>) => {
      try {
        return (await read()).map((tool) => `${tool.origin} ${tool.name}`).sort();
      } catch (error) {
        return [`threw ${(error as Error).name}: ${(error as Error).message}`];
      }
    };
    return {
      tools: await pairs(() => w.tools.getTools()),
      agentTools: await pairs(() => w.tools.getTools({ agentOnly: true })),
      of: await pairs(() => w.tools.of(document.getElementById('hostile')).getTools()),
      modelContext: await pairs(() =>
        (document as any).modelContext.getTools({ fromOrigins: [cross] }),
      ),
    };
  }, CROSS);
}

/** The hostile frame's share of a view (and any throw). */
const fromHostile = (pairs: string[]) =>
  pairs.filter((pair) => /^\S+ (hostile|forged)\./.test(pair) || pair.startsWith('threw'));

test.describe('origins, routes and sizes in its listings', () => {
  // Was a hole (issue 13): sanitize() took any potentially trustworthy origin and compared strings,
  // so the parent's own origin as `HTTP://LOCALHOST:P`, `http://LOCALHOST:P` or with a trailing
  // `/` passed the check that a subtree cannot claim it, and reached every view.
  test('origins in a form other than their serialization are refused, wherever they are claimed', async ({
    page,
  }) => {
    const hostile = await scene(page);
    expect(await attack(hostile, (h) => h.addChild())).toBe(1);
    await attack(hostile, (h) => h.setListMode('noncanonical'));
    const views = await listings(page);
    for (const [view, pairs] of Object.entries(views)) {
      // Its honest tools (its own, its child's) are listed: the listing was read.
      expect(fromHostile(pairs), view).toEqual([
        `${CROSS} hostile.child`,
        `${CROSS} hostile.honest`,
      ]);
      for (const pair of pairs) {
        const origin = pair.slice(0, pair.indexOf(' '));
        expect(new URL(origin).origin, pair).toBe(origin);
      }
    }
    // Requests naming origins: the honest form answers; other forms are refused.
    const answers = await attack(
      hostile,
      async (h, { top, cross }) => ({
        list: await h.ask(h.shapes.treeList(cross, [], [top])),
        listUpper: await h.ask(h.shapes.treeList(cross, [], [top.replace(/^http/, 'HTTP')])),
        listSlash: await h.ask(h.shapes.treeList(cross, [], [`${top}/`])),
        listVia: await h.ask(h.shapes.treeList(cross, [`${top}/`], [top])),
        call: await h.ask(h.shapes.treeCall(cross, 'top.agent', { origin: top })),
        callSlash: await h.ask(h.shapes.treeCall(cross, 'top.agent', { origin: `${top}/` })),
      }),
      { top: TOP, cross: CROSS },
    );
    const listed = (answer: Answer | undefined) =>
      ((answer?.value ?? []) as { name: string }[]).map((tool) => tool.name).sort();
    // (Its own tools come back to it too: the top's tree listing holds them.)
    expect(listed(answers.list).filter((name) => !name.startsWith('hostile.'))).toEqual(
      CROSS_MAY_SEE,
    );
    expect(nameOf(answers.call)).toBe('ok');
    expect({
      listUpper: nameOf(answers.listUpper),
      listSlash: nameOf(answers.listSlash),
      listVia: nameOf(answers.listVia),
      callSlash: nameOf(answers.callSlash),
    }).toEqual({
      listUpper: 'SecurityError',
      listSlash: 'SecurityError',
      listVia: 'SecurityError',
      callSlash: 'SecurityError',
    });
    expect(await frameLog(page)).toEqual([{ tool: 'top.agent', caller: CROSS }]);
    await aftermath(page, hostile);
  });

  // Was a hole (issue 13): a route past the end of a cross-origin frame's `frames` makes Chromium
  // throw SecurityError, and document.modelContext.getTools() walked every route it was given.
  test('tools under routes that lead to no frame are dropped, and no getTools() throws', async ({
    page,
  }) => {
    const hostile = await scene(page);
    expect(await attack(hostile, (h) => h.addChild())).toBe(1);
    await attack(hostile, (h) => h.setListMode('routes'));
    const views = await listings(page);
    for (const [view, pairs] of Object.entries(views))
      expect(fromHostile(pairs), view).toEqual([
        `${CROSS} hostile.child`,
        `${CROSS} hostile.honest`,
      ]);
    // The rest of the page is untouched.
    expect(await topNames(page)).toEqual([...TOP_SEES, 'hostile.child', 'hostile.honest'].sort());
    await aftermath(page, hostile);
  });

  test(`a frame over the cap of ${MAX_TOOLS_PER_FRAME} tools: the first ones are kept, with one warning naming its origin`, async ({
    page,
  }) => {
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning' && message.text().includes('tools per frame'))
        warnings.push(message.text());
    });
    const hostile = await scene(page);
    const hostileNames = async () =>
      (await topNames(page)).filter((name) => name.startsWith('hostile.'));
    // Within the cap: everything, no warning.
    await attack(hostile, (h, count) => h.setListMode('many', count), MAX_TOOLS_PER_FRAME);
    expect(await hostileNames()).toHaveLength(MAX_TOOLS_PER_FRAME);
    await attack(hostile, (h) => h.setListMode('many', 1000));
    for (let round = 0; round < 3; round++) {
      const names = await hostileNames();
      expect(names).toHaveLength(MAX_TOOLS_PER_FRAME);
      expect(names.at(-1)).toBe(`hostile.t${String(MAX_TOOLS_PER_FRAME - 1).padStart(4, '0')}`);
    }
    // The top's own tools and the sibling's are all still there.
    expect((await topNames(page)).filter((name) => !name.startsWith('hostile.'))).toEqual(TOP_SEES);
    expect(warnings).toEqual([
      `toolwire: the frame at ${CROSS} lists 1000 tools; only the first ${MAX_TOOLS_PER_FRAME} are used (the cap on tools per frame).`,
    ]);
    await aftermath(page, hostile);
  });

  test("the subtree cache: its tokens reuse only its own answer, as checked, and never another frame's", async ({
    page,
  }) => {
    const hostile = await scene(page);
    const capped = Array.from(
      { length: MAX_TOOLS_PER_FRAME },
      (_, i) => `hostile.t${String(i).padStart(4, '0')}`,
    );
    await attack(hostile, (h) => h.setListMode('tokens', 300));
    await attack(hostile, (h, answers) => h.setTokenAnswers(answers), [
      { token: 5, tools: 'many' as const }, // over the cap: the first 256 are kept
      { token: 5 }, // unchanged: what the top kept, capped as it was
      { token: 6 }, // a token alone that names nothing held: nothing
      { token: 5 }, // and the earlier answer is forgotten
      { token: 9, tools: 'impersonate' as const }, // only its honest tool passes the checks
      { token: 9 },
      // Small integers: the sibling's tokens are among them. They name nothing of ours.
      { token: 1 },
      { token: 2 },
      { token: 3 },
    ]);
    const rounds: string[][] = [];
    for (let round = 0; round < 9; round++) rounds.push(await topNames(page));
    const own = (names: string[]) => names.filter((name) => name.startsWith('hostile.'));
    const others = (names: string[]) => names.filter((name) => !name.startsWith('hostile.'));
    expect(rounds.map(own)).toEqual([
      capped,
      capped,
      [],
      [],
      ['hostile.honest'],
      ['hostile.honest'],
      [],
      [],
      [],
    ]);
    // The top's tools and the sibling's, in every round, once each.
    for (const names of rounds) expect(others(names)).toEqual(TOP_SEES);
    // The top asked with the token it held, and with none after a token that named nothing.
    const known = await attack(hostile, (h) => h.knownTokens());
    expect(known.slice(0, 6)).toEqual([0, 5, 5, 0, 0, 9]);
    await aftermath(page, hostile);
  });
});

// ---- floods ---------------------------------------------------------------------------------

type FloodKind = 'port-requests' | 'port-messages' | 'window' | 'hello';

interface FloodOutcome {
  hostile: Frame;
  /** A trivial page.evaluate straight after the flood was posted. */
  trivialMs: number;
  /** Then the top's getTools() and two callTool()s (its own tool, the sibling's). */
  apiMs: number;
  /** What that getTools() listed, while the flood may still be being handled. */
  namesDuring: string[];
  results: string[];
  /** What getTools() lists once the flood has drained. */
  namesAfter: string[];
  /** The top's longest event-loop stall from before the flood until it drained (5 ms beat). */
  stallMs: number;
  /** toolchange events fired meanwhile, in the top and in the honest sibling. */
  changes: { top: ChangeCounts; sibling: ChangeCounts };
  flood: FloodReport;
}
type ChangeCounts = { tools: number; modelContext: number };

/** Floods the top from the hostile frame (allowed, handshake done), then measures the aftermath. */
async function flood(page: Page, kind: FloodKind): Promise<FloodOutcome> {
  const hostile = await scene(page);
  const watch = () => {
    const w = window as any;
    w.changes = { tools: 0, modelContext: 0 };
    w.tools.addEventListener('toolchange', () => w.changes.tools++);
    (document as any).modelContext.addEventListener('toolchange', () => w.changes.modelContext++);
  };
  await siblingFrame(page).evaluate(watch);
  await page.evaluate(watch);
  await page.evaluate(() => {
    const w = window as any;
    let last = performance.now();
    w.longestStallMs = 0;
    w.heartbeat = setInterval(() => {
      const now = performance.now();
      w.longestStallMs = Math.max(w.longestStallMs, now - last);
      last = now;
    }, 5);
  });
  const posted = await attack(hostile, (h, k) => h.flood(k, 10_000), kind);
  expect(posted.posted).toBe(10_000);
  let started = Date.now();
  expect(await page.evaluate(() => 1 + 1)).toBe(2);
  const trivialMs = Date.now() - started;
  started = Date.now();
  const namesDuring = await topNames(page);
  const results: string[] = await page.evaluate(async () => {
    const tools = (window as any).tools;
    const own = await tools.callTool('top.own', { n: 1 });
    const sibling = await tools.of(document.getElementById('sib')).callTool('sib.star', {});
    return [own.tool, sibling.tool];
  });
  const apiMs = Date.now() - started;
  // Drained: every request answered (served or refused). Hellos over a live link get nothing.
  if (kind === 'port-requests') {
    await expect
      .poll(async () => (await report(hostile)).floods[kind]?.answers, { timeout: 20_000 })
      .toBe(10_000);
  } else {
    // Nothing may come back: barriers instead of a wait. Every window message handled (and
    // any welcome sent back before the echo), then every port message (an honest request on
    // the link is answered after them).
    await attack(hostile, (h) => h.barrier());
    const honest = await attack(hostile, (h, cross) => h.ask(h.shapes.treeList(cross)), CROSS);
    expect(nameOf(honest)).toBe('ok');
  }
  const stallMs: number = await page.evaluate(() => {
    clearInterval((window as any).heartbeat);
    return (window as any).longestStallMs;
  });
  const changes = {
    top: await page.evaluate(() => (window as any).changes),
    sibling: await siblingFrame(page).evaluate(() => (window as any).changes),
  };
  const outcome: FloodOutcome = {
    hostile,
    trivialMs,
    apiMs,
    namesDuring,
    results,
    namesAfter: await topNames(page),
    stallMs,
    changes,
    flood: (await report(hostile)).floods[kind] as FloodReport,
  };
  test.info().annotations.push({
    type: `flood of ${kind}`,
    description: `trivial evaluate ${trivialMs} ms; getTools + 2 callTool ${apiMs} ms; top's longest stall ${stallMs.toFixed(0)} ms; last reply ${outcome.flood.lastReplyMs.toFixed(0)} ms after the flood began; toolchange events ${JSON.stringify(changes)}; refusals ${JSON.stringify(outcome.flood.errors)}`,
  });
  return outcome;
}

test.describe('floods of 10,000', () => {
  const floods = [
    { kind: 'port-requests', title: 'requests on its port (refused ops, unexposed tools)' },
    { kind: 'port-messages', title: 'non-request messages on its port' },
    { kind: 'window', title: 'forged window messages' },
    { kind: 'hello', title: 'hellos over its live link' },
  ] as const;
  for (const { kind, title } of floods) {
    test(`${title}: the top recovers, nothing leaks or runs, nothing throws`, async ({ page }) => {
      // The whole test's bound, not a wait: more work than the default 30 s allows a busy machine.
      test.setTimeout(60_000);
      const outcome = await flood(page, kind);
      // Straight after the flood the page answers and its own API works. (Generous bounds on
      // a shared 2-core machine: these catch a hang, not a slow patch; the numbers are in the
      // test's annotations.)
      expect(outcome.trivialMs).toBeLessThan(5000);
      expect(outcome.apiMs).toBeLessThan(10_000);
      expect(outcome.results).toEqual(['top.own', 'sib.star']);
      expect(outcome.namesAfter).toEqual(TOP_SEES);
      expect(outcome.namesDuring).toEqual(TOP_SEES);
      if (kind === 'port-requests') {
        // Beyond 256 in flight the link sheds load instead of queueing it.
        expect(outcome.flood.errors.QuotaExceededError ?? 0).toBeGreaterThan(0);
        expect(outcome.flood.oks).toBeLessThanOrEqual(2000);
      } else {
        expect(outcome.flood.answers).toBe(0);
        expect(outcome.flood.welcomes).toBe(0);
      }
      // Its link still works after the flood (a legitimate request is answered).
      const after = await attack(
        outcome.hostile,
        (h, cross) => h.ask(h.shapes.treeList(cross), { timeoutMs: 10_000 }),
        CROSS,
      );
      expect(nameOf(after)).toBe('ok');
      for (const name of namesReceived(await report(outcome.hostile)))
        expect(CROSS_MAY_SEE).toContain(name);
      expect(await frameLog(page)).toEqual([{ tool: 'top.own', caller: TOP }]);
      expect(await frameLog(siblingFrame(page))).toEqual([{ tool: 'sib.star', caller: TOP }]);
      await aftermath(page, outcome.hostile);
    });
  }

  // Was a hole (re-handshake flood): every `hello` rebuilt the child's link without limit, each
  // closing the old link (toolchange, change notices to every frame) and opening a new channel;
  // 10,000 hellos kept the top busy 2.4-3.4 s and fired 10,000 toolchange events per layer.
  // Now a hello over a live link is ignored (a navigating child says bye first).
  test('10,000 hellos over a live link: no new handshake, no toolchange storm', async ({
    page,
  }) => {
    // The whole test's bound, not a wait: more work than the default 30 s allows a busy machine.
    test.setTimeout(60_000);
    const outcome = await flood(page, 'hello');
    expect(outcome.flood.welcomes).toBe(0);
    expect(outcome.namesDuring).toEqual(TOP_SEES);
    expect(outcome.changes.top?.tools ?? 0).toBeLessThanOrEqual(2);
    expect(outcome.changes.sibling?.modelContext ?? 0).toBeLessThanOrEqual(2);
  });
});
