/**
 * The frames demo's one data module (issue 5, last bullet), read by the top page, by every frame
 * page and by the expectations. It spells out docs/browser-api.md's six-row "Permissions" table as real
 * frames: which origin each frame is served from, the exact `allow` attribute of its `<iframe>`,
 * and the tools it registers. Pure data and small pure helpers: no DOM, no globals.
 *
 * Origins are symbolic ('A' is the top's origin, 'B' the other one) so the same definition works
 * on any two ports; the concrete pair is a `DemoOrigins`.
 */

export type OriginKey = 'A' | 'B';

export interface DemoOrigins {
  /** The top document's origin, e.g. http://localhost:5173. */
  A: string;
  /** The cross-origin frames' origin, e.g. http://127.0.0.1:5174. */
  B: string;
}

/**
 * Who a tool is exposed to: `none` = no `exposedTo` (same-origin default), `top` = the top's
 * origin, `any` = `'*'`, `unrelated` = an origin that is not on the page at all.
 */
export type Exposure = 'none' | 'top' | 'any' | 'unrelated';

/** A potentially trustworthy origin that never appears in the page (so it grants nothing here). */
export const UNRELATED_ORIGIN = 'https://partner.example';

export interface ToolSpec {
  /** Unique in the whole page, so one name identifies one registration in every view. */
  name: string;
  exposure: Exposure;
  /** Registered with `naturalLanguageProperties`, i.e. exposed to agents. */
  agent: boolean;
  /** Default `toolManager.register`; `modelContext` = `document.modelContext.registerTool`. */
  via?: 'toolManager' | 'modelContext';
}

export type ScenarioRow = 1 | 2 | 3 | 4 | 5 | 6;

export interface FrameSpec {
  /** Also the frame page's `?id=` query value. */
  id: string;
  /** The docs/browser-api.md table row it illustrates; 0 for the top document. */
  row: ScenarioRow | 0;
  label: string;
  origin: OriginKey;
  /** The exact `allow` attribute of the `<iframe>` that embeds it; null = no attribute. */
  allow: string | null;
  /** The embedding document's frame id (`'top'` for children); null for the top itself. */
  parent: string | null;
  tools: readonly ToolSpec[];
}

export interface ScenarioSpec {
  row: ScenarioRow;
  title: string;
  /** docs/browser-api.md's table row, in a sentence. */
  rule: string;
}

export const TOP_ID = 'top';

/** docs/browser-api.md "Permissions", the six rows. */
export const SCENARIOS: readonly ScenarioSpec[] = [
  {
    row: 1,
    title: 'Same-origin iframe, no allow',
    rule: "Default allowlist 'self': tools coalesce into top; agents see the agent-exposed ones.",
  },
  {
    row: 2,
    title: 'Cross-origin iframe, no allow',
    rule: "Not allowed: nothing coalesces. A direct of(frame) read still sees tools exposed to top's origin or '*'.",
  },
  {
    row: 3,
    title: 'Cross-origin iframe, allow="tools"',
    rule: "Allowed ('src'): tools exposed to top's origin (or '*') coalesce; agents see those with natural-language properties.",
  },
  {
    row: 4,
    title: 'Any iframe, allow="tools \'none\'"',
    rule: "Refused even same-origin: nothing coalesces; of(frame) sees only tools exposed to top's origin.",
  },
  {
    row: 5,
    title: 'Grandchild allowed inside an allowed child',
    rule: 'Coalesces transitively, child then top; also readable via of(child).of(grandchild).',
  },
  {
    row: 6,
    title: 'Grandchild allowed, its parent not',
    rule: 'Coalescing stops at the first refusal (the child); of(child) reads it only if exposed.',
  },
];

const agentTool = (name: string, exposure: Exposure): ToolSpec => ({ name, exposure, agent: true });
const plainTool = (name: string, exposure: Exposure): ToolSpec => ({
  name,
  exposure,
  agent: false,
});

/** The top document and every frame, parents before children. */
export const FRAMES: readonly FrameSpec[] = [
  {
    id: TOP_ID,
    row: 0,
    label: 'top document',
    origin: 'A',
    allow: null,
    parent: null,
    tools: [
      agentTool('top.search', 'none'),
      plainTool('top.debug', 'none'),
      { name: 'top.summary', exposure: 'none', agent: true, via: 'modelContext' },
    ],
  },
  {
    id: 'r1',
    row: 1,
    label: 'child',
    origin: 'A',
    allow: null,
    parent: TOP_ID,
    tools: [
      agentTool('r1.own', 'none'),
      plainTool('r1.internal', 'none'),
      agentTool('r1.elsewhere', 'unrelated'),
    ],
  },
  {
    id: 'r2',
    row: 2,
    label: 'child',
    origin: 'B',
    allow: null,
    parent: TOP_ID,
    tools: [
      agentTool('r2.own', 'none'),
      agentTool('r2.toTop', 'top'),
      plainTool('r2.anyone', 'any'),
    ],
  },
  {
    id: 'r3',
    row: 3,
    label: 'child',
    origin: 'B',
    allow: 'tools',
    parent: TOP_ID,
    tools: [
      agentTool('r3.own', 'none'),
      agentTool('r3.toTop', 'top'),
      plainTool('r3.anyone', 'any'),
      agentTool('r3.elsewhere', 'unrelated'),
    ],
  },
  {
    id: 'r4a',
    row: 4,
    label: 'same-origin child',
    origin: 'A',
    allow: "tools 'none'",
    parent: TOP_ID,
    tools: [agentTool('r4a.own', 'none'), plainTool('r4a.internal', 'none')],
  },
  {
    id: 'r4b',
    row: 4,
    label: 'cross-origin child',
    origin: 'B',
    allow: "tools 'none'",
    parent: TOP_ID,
    tools: [agentTool('r4b.own', 'none'), agentTool('r4b.toTop', 'top')],
  },
  {
    id: 'r5',
    row: 5,
    label: 'child',
    origin: 'B',
    allow: 'tools',
    parent: TOP_ID,
    tools: [agentTool('r5.child.toTop', 'top')],
  },
  {
    id: 'r5g',
    row: 5,
    label: 'grandchild',
    origin: 'B',
    allow: 'tools',
    parent: 'r5',
    tools: [
      agentTool('r5.gc.own', 'none'),
      agentTool('r5.gc.toTop', 'top'),
      agentTool('r5.gc.anyone', 'any'),
    ],
  },
  {
    id: 'r6',
    row: 6,
    label: 'child',
    origin: 'B',
    allow: null,
    parent: TOP_ID,
    tools: [agentTool('r6.child.toTop', 'top')],
  },
  {
    id: 'r6g',
    row: 6,
    label: 'grandchild',
    origin: 'B',
    allow: 'tools',
    parent: 'r6',
    tools: [
      agentTool('r6.gc.own', 'none'),
      agentTool('r6.gc.toTop', 'top'),
      agentTool('r6.gc.anyone', 'any'),
    ],
  },
];

export function frameById(id: string): FrameSpec | undefined {
  return FRAMES.find((frame) => frame.id === id);
}

export function childrenOf(id: string): FrameSpec[] {
  return FRAMES.filter((frame) => frame.parent === id);
}

/** The `exposedTo` a tool registers with (undefined = the same-origin default). */
export function exposedToOf(exposure: Exposure, origins: DemoOrigins): string[] | undefined {
  switch (exposure) {
    case 'none':
      return undefined;
    case 'top':
      return [origins.A];
    case 'any':
      return ['*'];
    case 'unrelated':
      return [UNRELATED_ORIGIN];
  }
}

/** The frame page's URL: its id, and both origins so it can embed and report without guessing. */
export function frameUrl(frame: FrameSpec, origins: DemoOrigins): string {
  const query = new URLSearchParams({ id: frame.id, a: origins.A, b: origins.B });
  return `${origins[frame.origin]}/frames/frame.html?${query}`;
}

/** Origins from a frame page's query (`a`, `b`), or undefined when either is missing. */
export function originsFromQuery(search: string): DemoOrigins | undefined {
  const query = new URLSearchParams(search);
  const A = query.get('a');
  const B = query.get('b');
  return A && B ? { A, B } : undefined;
}
