/**
 * The frames demo's top page (issue 5, last bullet), served on origin A. It builds docs/browser-api.md's six
 * permission scenarios from real iframes (scenarios.ts), then shows, for every tool on the page,
 * what each view actually sees beside what docs/browser-api.md says it should (expectations.ts): green when
 * they agree, red when not, ⚠ when the call itself failed. The matrix is redrawn on `toolchange`
 * from `window.tools` or `document.modelContext`, on each frame's report, and on "re-run".
 */
import { install } from '../../packages/polyfill/src/index.js';
import type { Expectation, ToolRow, ViewId } from './expectations.js';
import { Expectations, VIEWS } from './expectations.js';
import type { RegistrationResult } from './messages.js';
import { isFrameStatusMessage } from './messages.js';
import { describeError, registerTools } from './register.js';
import type { DemoOrigins, FrameSpec } from './scenarios.js';
import { childrenOf, FRAMES, frameById, frameUrl, SCENARIOS, TOP_ID } from './scenarios.js';

/** How long the first render waits for every frame to load and report. */
const FRAME_TIMEOUT_MS = 10_000;
/** A view call that has not settled by then is shown as a TimeoutError cell. */
const CALL_TIMEOUT_MS = 4_000;

interface ViewInfo {
  head: string;
  code: string;
  explain: string;
}

const VIEW_INFO: Record<ViewId, ViewInfo> = {
  registered: {
    head: 'registered',
    code: 'toolManager.register()',
    explain: 'In its own frame, as that frame reports. Registering needs no permission.',
  },
  top: {
    head: 'top.tools.getTools()',
    code: 'the whole page',
    explain:
      "The top's own tools plus those that coalesce upward: only from frames allowed to use tools (every embedding up to the top), only tools exposed to the top's origin.",
  },
  agent: {
    head: 'agent view',
    code: 'getTools({agentOnly: true})',
    explain:
      'The same list cut to tools with naturalLanguageProperties: what agents served by the top see.',
  },
  of: {
    head: 'of(frame)',
    code: 'tools.of(iframe)…',
    explain:
      'A direct read of the one frame that registered it (of(window) for the top, of(child).of(grandchild) for grandchildren). No permission needed; exposure still applies.',
  },
  ofChild: {
    head: 'of(child)',
    code: 'grandchild via parent',
    explain:
      "A grandchild's tools read through its parent's subtree: only those that coalesce into the parent (its own allow) and are exposed to the top.",
  },
  modelContext: {
    head: 'document.modelContext',
    code: 'getTools({fromOrigins: [B]})',
    explain:
      "The WebMCP spec surface: agent tools only, from frames allowed to use tools, double opt-in: the tool's exposedTo lists the top (or '*'), and fromOrigins lists the frame's origin.",
  },
};

interface Listed {
  name: string;
  origin: string;
}

type Outcome = { ok: true; tools: Listed[]; keys: Set<string> } | { ok: false; error: string };

interface Cell {
  state: 'match' | 'mismatch' | 'error' | 'na';
  text: string;
  title: string;
}

const keyOf = (tool: Listed) => `${tool.name}\n${tool.origin}`;

function injectedOrigins(): DemoOrigins {
  if (typeof __TOOLWIRE_DEMO_ORIGINS__ !== 'undefined' && __TOOLWIRE_DEMO_ORIGINS__)
    return __TOOLWIRE_DEMO_ORIGINS__;
  return { A: location.origin, B: 'http://127.0.0.1:5174' };
}

const origins = injectedOrigins();
const expectations = new Expectations(origins);
const rows = expectations.rows();
const installation = install();
const { tools, modelContext } = installation;
/** Registration reports, by frame id (the top's own included). */
const reports = new Map<string, RegistrationResult[]>();
/** The top's iframe elements, by frame id. */
const iframes = new Map<string, HTMLIFrameElement>();

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; title?: string; colSpan?: number; rowSpan?: number } = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

function byId(id: string): HTMLElement {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is missing from index.html`);
  return node;
}

const shortOrigin = (origin: string) => origin.replace(/^https?:\/\//, '');
const chip = (key: 'A' | 'B') => h('span', { className: `chip chip-${key.toLowerCase()}` }, key);

/** The WindowProxy of a frame: an iframe's contentWindow, or `frames[i]` of its parent. */
function windowOf(frame: FrameSpec): Window | null {
  if (frame.id === TOP_ID) return window;
  if (frame.parent === TOP_ID) return iframes.get(frame.id)?.contentWindow ?? null;
  const parent = frame.parent === null ? undefined : frameById(frame.parent);
  if (!parent) return null;
  const index = childrenOf(parent.id).indexOf(frame);
  const parentWindow = windowOf(parent);
  // Cross-origin, `frames[i]` throws SecurityError (not undefined) past `length`: check first.
  if (!parentWindow || parentWindow.length <= index) return null;
  return parentWindow.frames[index] ?? null;
}

/**
 * What the demo needs of a `Tools` object (docs/browser-api.md: `getTools`, and `of(target): Tools`). Typed
 * structurally: `of()` answers with a Tools-like view of another frame, local or remote.
 */
interface ToolsView {
  getTools(): Promise<readonly Listed[]>;
  of(target: Window | HTMLIFrameElement): unknown;
}

const ofView = (from: ToolsView, target: Window | HTMLIFrameElement) =>
  from.of(target) as ToolsView;

/** `tools.of(...)` down to a frame: of(window), of(iframe), or of(iframe).of(windowProxy). */
function toolsOf(frame: FrameSpec): ToolsView {
  if (frame.id === TOP_ID) return ofView(tools, window);
  const iframe = iframes.get(frame.id);
  if (iframe) return ofView(tools, iframe);
  const parent = frame.parent === null ? undefined : frameById(frame.parent);
  const proxy = windowOf(frame);
  if (!parent || !proxy) throw new DOMException(`frame ${frame.id} has no window`, 'NotFoundError');
  return ofView(toolsOf(parent), proxy);
}

/** Runs one view call; a throw, a rejection or no answer becomes an error outcome. */
async function probe(call: () => Promise<readonly Listed[]>): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DOMException(`no answer in ${CALL_TIMEOUT_MS} ms`, 'TimeoutError')),
      CALL_TIMEOUT_MS,
    );
  });
  try {
    const listed = await Promise.race([(async () => call())(), timeout]);
    const copy = listed.map(({ name, origin }) => ({ name, origin }));
    return { ok: true, tools: copy, keys: new Set(copy.map(keyOf)) };
  } catch (error) {
    return { ok: false, error: describeError(error) };
  } finally {
    clearTimeout(timer);
  }
}

interface Snapshot {
  views: Record<'top' | 'agent' | 'modelContext', Outcome>;
  /** `toolsOf(frame).getTools()`, by frame id. */
  of: Map<string, Outcome>;
}

async function snapshot(): Promise<Snapshot> {
  const [top, agent, mc, ...ofs] = await Promise.all([
    probe(() => tools.getTools()),
    probe(() => tools.getTools({ agentOnly: true })),
    probe(() => modelContext.getTools({ fromOrigins: [origins.B] })),
    ...FRAMES.map((frame) => probe(() => toolsOf(frame).getTools())),
  ]);
  const of = new Map<string, Outcome>();
  FRAMES.forEach((frame, index) => {
    of.set(frame.id, ofs[index] as Outcome);
  });
  return { views: { top, agent, modelContext: mc }, of };
}

const yesNo = (seen: boolean) => (seen ? 'yes' : 'no');

/** Which outcome a view cell of this row reads. */
function outcomeFor(row: ToolRow, view: ViewId, snap: Snapshot): Outcome | undefined {
  if (view === 'top' || view === 'agent' || view === 'modelContext') return snap.views[view];
  if (view === 'of') return snap.of.get(row.frame.id);
  if (view === 'ofChild') {
    const child = expectations.childOf(row.frame);
    return child ? snap.of.get(child.id) : undefined;
  }
  return undefined;
}

function cellFor(row: ToolRow, view: ViewId, expected: Expectation | null, snap: Snapshot): Cell {
  if (!expected) return { state: 'na', text: '–', title: 'does not apply to this tool' };
  if (view === 'registered') {
    const report = reports.get(row.frame.id)?.find((result) => result.name === row.tool.name);
    if (!report)
      return { state: 'error', text: '⚠ no report', title: 'the frame did not report (yet)' };
    const state = report.ok === expected.seen ? 'match' : 'mismatch';
    const text = report.ok ? 'yes' : `no: ${(report.error ?? '').split(':')[0]}`;
    return { state, text, title: report.error ?? 'registered' };
  }
  const outcome = outcomeFor(row, view, snap);
  if (!outcome) return { state: 'error', text: '⚠ no call', title: 'nothing to call' };
  if (!outcome.ok)
    return { state: 'error', text: `⚠ ${outcome.error.split(':')[0]}`, title: outcome.error };
  const seen = outcome.keys.has(keyOf({ name: row.tool.name, origin: row.origin }));
  return {
    state: seen === expected.seen ? 'match' : 'mismatch',
    text: yesNo(seen),
    title: `${seen ? 'listed' : 'not listed'} by ${VIEW_INFO[view].head}`,
  };
}

/** Tools a view listed that no row checks against that view (a leak, a stray registration). */
function strays(snap: Snapshot): string[] {
  const out: string[] = [];
  const note = (label: string, outcome: Outcome | undefined, checked: ToolRow[]) => {
    if (!outcome?.ok) return;
    const known = new Set(checked.map((row) => keyOf({ name: row.tool.name, origin: row.origin })));
    for (const tool of outcome.tools) {
      if (!known.has(keyOf(tool))) out.push(`${label}: ${tool.name} (${tool.origin})`);
    }
  };
  note('top.tools.getTools()', snap.views.top, rows);
  note('agent view', snap.views.agent, rows);
  note('document.modelContext', snap.views.modelContext, rows);
  // of(frame) reads the frame's subtree: its own tools and what coalesces into it.
  for (const frame of FRAMES) {
    const checked = rows.filter((row) => expectations.isWithin(row.frame, frame));
    note(`of(${frame.id})`, snap.of.get(frame.id), checked);
  }
  return out;
}

function originLabel(origin: string): string {
  if (origin === '*') return "'*'";
  if (origin === origins.A) return 'top (A)';
  if (origin === origins.B) return 'B';
  return shortOrigin(origin);
}

function exposedToCell(row: ToolRow): HTMLElement {
  const { exposedTo } = row;
  if (!exposedTo)
    return h('td', { className: 'muted', title: 'no exposedTo: same-origin only' }, 'same-origin');
  return h('td', { title: JSON.stringify(exposedTo) }, exposedTo.map(originLabel).join(', '));
}

function frameCell(frame: FrameSpec, rowSpan: number): HTMLElement {
  const where = h(
    'div',
    {},
    h('b', {}, frame.id),
    ` ${frame.label} · `,
    chip(frame.origin),
    ` ${shortOrigin(origins[frame.origin])}`,
  );
  if (frame.id === TOP_ID) return h('td', { className: 'frame-cell', rowSpan }, where);
  const grant = expectations.grant(frame);
  const reaches = expectations.reaches(frame);
  return h(
    'td',
    { className: 'frame-cell', rowSpan },
    where,
    h(
      'div',
      { title: `Its embedding: ${grant.why}. Up to the top: ${reaches.why}.` },
      h('code', {}, frame.allow === null ? 'no allow' : `allow="${frame.allow}"`),
      h('span', { className: 'muted' }, ` → reaches top: ${yesNo(reaches.granted)}`),
    ),
  );
}

function scenarioCell(row: number, rowSpan: number): HTMLElement {
  const scenario = SCENARIOS.find((entry) => entry.row === row);
  return h(
    'td',
    { className: 'row-cell', rowSpan, title: scenario?.rule ?? 'the top document itself' },
    h('div', { className: 'row-num' }, row === 0 ? 'top' : String(row)),
    h('div', { className: 'muted' }, scenario?.title ?? 'its own tools'),
  );
}

interface Counts {
  cells: number;
  matching: number;
  mismatching: number;
  errors: number;
}

function renderTable(snap: Snapshot): { body: HTMLElement; counts: Counts } {
  const body = h('tbody');
  const counts: Counts = { cells: 0, matching: 0, mismatching: 0, errors: 0 };
  for (const scenarioRow of [0, 1, 2, 3, 4, 5, 6]) {
    const group = rows.filter((row) => row.frame.row === scenarioRow);
    group.forEach((row, index) => {
      const tr = h('tr', { className: index === 0 ? 'group-start' : '' });
      if (index === 0) tr.append(scenarioCell(scenarioRow, group.length));
      if (row.frame.tools[0] === row.tool) tr.append(frameCell(row.frame, row.frame.tools.length));
      tr.append(
        h('td', {}, h('code', {}, row.tool.name)),
        exposedToCell(row),
        h('td', { className: row.tool.agent ? '' : 'muted' }, row.tool.agent ? 'yes' : 'no'),
      );
      for (const view of VIEWS) {
        const expected = row.expected[view];
        const cell = cellFor(row, view, expected, snap);
        const actual = h('td', { className: `act ${cell.state}`, title: cell.title }, cell.text);
        if (cell.state !== 'na') {
          actual.dataset.cell = view;
          actual.dataset.match = cell.state;
          actual.dataset.tool = row.tool.name;
          counts.cells++;
          if (cell.state === 'match') counts.matching++;
          else counts.mismatching++;
          if (cell.state === 'error') counts.errors++;
        }
        const exp = expected
          ? h('td', { className: 'exp', title: expected.why }, yesNo(expected.seen))
          : h('td', { className: 'exp na' }, '');
        tr.append(actual, exp);
      }
      body.append(tr);
    });
  }
  return { body, counts };
}

let renders = 0;

async function render(trigger: string): Promise<void> {
  const snap = await snapshot();
  const { body, counts } = renderTable(snap);
  const table = byId('matrix');
  table.querySelector('tbody')?.replaceWith(body);
  const stray = strays(snap);
  const notes = byId('strays');
  notes.replaceChildren(
    ...(stray.length ? [h('b', {}, 'Listed but not in the scenario: '), stray.join('; ')] : []),
  );
  renders++;
  Object.assign(table.dataset, {
    cells: String(counts.cells),
    matching: String(counts.matching),
    mismatching: String(counts.mismatching),
    errors: String(counts.errors),
    strays: String(stray.length),
    renders: String(renders),
  });
  byId('summary').replaceChildren(
    h('span', { className: 'pill match' }, `${counts.matching} match`),
    h('span', { className: 'pill mismatch' }, `${counts.mismatching - counts.errors} mismatch`),
    h('span', { className: 'pill error' }, `${counts.errors} ⚠ failed calls`),
    ` of ${counts.cells} cells · run ${renders} (${trigger}) at ${new Date().toLocaleTimeString()}`,
  );
}

// Renders never overlap and bursts of triggers coalesce: while one is queued, later triggers
// only relabel it.
let queued: string | undefined;
let chain: Promise<void> = Promise.resolve();
function scheduleRender(trigger: string): Promise<void> {
  if (queued !== undefined) {
    queued = trigger;
    return chain;
  }
  queued = trigger;
  chain = chain.then(async () => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    const label = queued ?? trigger;
    queued = undefined;
    try {
      await render(label);
    } catch (error) {
      byId('warning').textContent = `Rendering failed: ${describeError(error)}`;
    }
  });
  return chain;
}

function buildHeader(): void {
  byId('origins').replaceChildren(
    'Top page on ',
    chip('A'),
    ` ${origins.A}; cross-origin frames on `,
    chip('B'),
    ` ${origins.B}. document.modelContext is ${installation.native ? "the browser's own" : 'the polyfill'}.`,
  );
  if (location.origin !== origins.A) {
    byId('warning').textContent =
      `Open this page on ${origins.A}/frames/: the scenarios assume the top is origin A.`;
  }
  const legend = byId('views');
  for (const view of VIEWS) {
    const info = VIEW_INFO[view];
    legend.append(h('dt', {}, h('code', {}, info.head)), h('dd', {}, info.explain));
  }
  const head = byId('matrix').querySelector('thead');
  const first = h('tr');
  const second = h('tr');
  for (const label of ['#', 'frame', 'tool', 'exposedTo', 'agent?']) {
    first.append(h('th', { rowSpan: 2 }, label));
  }
  for (const view of VIEWS) {
    const info = VIEW_INFO[view];
    first.append(
      h(
        'th',
        { colSpan: 2, className: 'view', title: info.explain },
        info.head,
        h('small', {}, info.code),
      ),
    );
    second.append(
      h('th', { className: 'sub' }, 'actual'),
      h('th', { className: 'sub' }, 'expected'),
    );
  }
  head?.replaceChildren(first, second);
}

/** The six scenario cards, each holding its real iframe(s). Resolves when all have loaded. */
function buildScenarios(): Promise<unknown> {
  const loads: Promise<unknown>[] = [];
  const grid = byId('scenarios');
  for (const scenario of SCENARIOS) {
    const card = h(
      'section',
      { className: 'card' },
      h('h3', {}, h('span', { className: 'row-num' }, String(scenario.row)), ` ${scenario.title}`),
      h('p', {}, scenario.rule),
    );
    for (const frame of FRAMES.filter(
      (entry) => entry.row === scenario.row && entry.parent === TOP_ID,
    )) {
      const iframe = document.createElement('iframe');
      if (frame.allow !== null) iframe.setAttribute('allow', frame.allow);
      iframe.title = `frame ${frame.id}`;
      iframe.className = childrenOf(frame.id).length > 0 ? 'tall' : '';
      loads.push(
        new Promise((resolve) => iframe.addEventListener('load', resolve, { once: true })),
      );
      iframe.src = frameUrl(frame, origins);
      iframes.set(frame.id, iframe);
      const attr = frame.allow === null ? '' : ` allow="${frame.allow}"`;
      card.append(
        h('code', { className: 'embed' }, `<iframe src="${frame.origin}"${attr}>`),
        iframe,
      );
    }
    grid.append(card);
  }
  return Promise.all(loads);
}

window.addEventListener('message', (event) => {
  // Source and origin first (docs/style.md 2): only our own frames, from their own origins.
  if (event.origin !== origins.A && event.origin !== origins.B) return;
  const frame = FRAMES.find((entry) => entry.id !== TOP_ID && windowOf(entry) === event.source);
  if (!frame || event.origin !== origins[frame.origin]) return;
  const data: unknown = event.data;
  if (!isFrameStatusMessage(data) || data.id !== frame.id) return;
  reports.set(frame.id, data.results);
  allReported();
  void scheduleRender(`report from ${frame.id}`);
});

let allReported = () => {};
const reported = new Promise<void>((resolve) => {
  allReported = () => {
    if (FRAMES.every((frame) => reports.has(frame.id))) resolve();
  };
});

async function main(): Promise<void> {
  buildHeader();
  tools.addEventListener('toolchange', () => void scheduleRender('tools toolchange'));
  modelContext.addEventListener('toolchange', () => void scheduleRender('modelContext toolchange'));
  byId('rerun').addEventListener('click', () => void scheduleRender('re-run'));
  const top = frameById(TOP_ID) as FrameSpec;
  reports.set(TOP_ID, await registerTools(installation, top, origins));
  const loaded = buildScenarios();
  await Promise.race([
    Promise.all([loaded, reported]),
    new Promise((resolve) => setTimeout(resolve, FRAME_TIMEOUT_MS)),
  ]);
  await scheduleRender('initial');
  byId('matrix').dataset.ready = 'true';
}

main().catch((error: unknown) => {
  byId('warning').textContent = `The demo failed: ${describeError(error)}`;
  byId('matrix').dataset.ready = 'true';
});
