/**
 * What each view of the frames demo should see, computed from docs/browser-api.md alone (no DOM, no polyfill).
 *
 * 1. Exposure: a tool is visible to an origin when it is that origin's own, or its `exposedTo`
 *    lists the origin or `'*'` (docs/browser-api.md "Registering": default = same-origin only).
 * 2. Permission (emulated `tools` feature, default allowlist 'self'): the `<iframe allow>` grants
 *    `tools` to a child when the allowlist matches the child's origin; bare `tools` = 'src';
 *    `'none'` refuses even a same-origin child.
 * 3. `top.tools.getTools()`: the top's own tools plus those that coalesce upward; a frame's tools
 *    coalesce only when every embedding on the way up grants `tools` ("coalescing stops at the
 *    first refusal"), and only the ones exposed to the top's origin arrive. The agent view is the
 *    same list cut to tools with naturalLanguageProperties.
 * 4. `tools.of(frame).getTools()`: a direct read, no permission needed, filtered by exposure;
 *    `of(child)` also returns what coalesces into the child from its own descendants.
 * 5. `document.modelContext.getTools({fromOrigins})`: agent-exposed tools of documents allowed
 *    to use `tools` (Permissions Policy is inherited: a frame whose parent is refused is refused
 *    too), with the double opt-in: the provider's `exposedTo` lists the caller (or '*': the
 *    registry rule; see the open question in the report) and the caller's `fromOrigins` lists
 *    the provider's origin (or it is the caller's own origin).
 */
import type { DemoOrigins, FrameSpec, ToolSpec } from './scenarios.js';
import { exposedToOf, FRAMES, TOP_ID } from './scenarios.js';

export type ViewId = 'registered' | 'top' | 'agent' | 'of' | 'ofChild' | 'modelContext';

export const VIEWS: readonly ViewId[] = [
  'registered',
  'top',
  'agent',
  'of',
  'ofChild',
  'modelContext',
];

export interface Expectation {
  seen: boolean;
  /** The rule behind it, one short line. */
  why: string;
}

export interface ToolRow {
  frame: FrameSpec;
  tool: ToolSpec;
  /** The tool's origin: the origin of the document that registered it. */
  origin: string;
  exposedTo: string[] | undefined;
  /** null: the view does not apply to this tool (shown as a dash, not counted). */
  expected: Record<ViewId, Expectation | null>;
}

export interface Grant {
  granted: boolean;
  why: string;
}

/** The allowlist an `allow` attribute gives `tools`; undefined when it does not name it. */
export function toolsAllowlist(allow: string | null): string[] | undefined {
  if (allow === null) return undefined;
  for (const directive of allow.split(';')) {
    const [feature, ...list] = directive.trim().split(/\s+/);
    if (feature?.toLowerCase() === 'tools') return list.length === 0 ? ["'src'"] : list;
  }
  return undefined;
}

/** Does the embedding's `allow` grant `tools` to a child of `childOrigin` (served from its src)? */
export function grantsTools(
  allow: string | null,
  childOrigin: string,
  parentOrigin: string,
): Grant {
  const list = toolsAllowlist(allow);
  if (list === undefined) {
    return childOrigin === parentOrigin
      ? { granted: true, why: "no allow: default 'self', and it is same-origin" }
      : { granted: false, why: "no allow: default 'self', and it is cross-origin" };
  }
  const tokens = list.map((token) => token.toLowerCase());
  if (tokens.includes("'none'"))
    return { granted: false, why: `allow="${allow}" refuses everyone` };
  const granted = tokens.some((token) => {
    if (token === '*' || token === "'src'") return true;
    if (token === "'self'") return childOrigin === parentOrigin;
    try {
      return new URL(token).origin === childOrigin;
    } catch {
      return false;
    }
  });
  return granted
    ? { granted: true, why: `allow="${allow}" grants its origin` }
    : { granted: false, why: `allow="${allow}" does not list its origin` };
}

/** Rule 1. */
export function exposure(
  toolOrigin: string,
  exposedTo: readonly string[] | undefined,
  caller: string,
): Grant {
  if (toolOrigin === caller) return { granted: true, why: "the caller's own origin" };
  if (exposedTo?.includes(caller)) return { granted: true, why: 'exposedTo lists the caller' };
  if (exposedTo?.includes('*')) return { granted: true, why: "exposedTo is '*'" };
  return {
    granted: false,
    why: exposedTo?.length
      ? 'exposedTo does not list the caller'
      : 'same-origin only (no exposedTo)',
  };
}

export class Expectations {
  readonly origins: DemoOrigins;
  readonly fromOrigins: readonly string[];
  #frames: ReadonlyMap<string, FrameSpec>;

  constructor(
    origins: DemoOrigins,
    fromOrigins: readonly string[] = [origins.B],
    frames: readonly FrameSpec[] = FRAMES,
  ) {
    this.origins = origins;
    this.fromOrigins = fromOrigins;
    this.#frames = new Map(frames.map((frame) => [frame.id, frame]));
  }

  originOf(frame: FrameSpec): string {
    return this.origins[frame.origin];
  }

  parentOf(frame: FrameSpec): FrameSpec | undefined {
    return frame.parent === null ? undefined : this.#frames.get(frame.parent);
  }

  /** Rule 2, for one embedding: does the parent's `<iframe allow>` grant this frame `tools`? */
  grant(frame: FrameSpec): Grant {
    const parent = this.parentOf(frame);
    if (!parent) return { granted: true, why: 'the top-level document' };
    return grantsTools(frame.allow, this.originOf(frame), this.originOf(parent));
  }

  /**
   * Rule 3: do this frame's tools coalesce up to `ancestorId` (exclusive)? Every embedding on
   * the way must grant `tools`; the first refusal stops it. Also rule 5's "allowed to use".
   */
  reaches(frame: FrameSpec, ancestorId: string = TOP_ID): Grant {
    let current: FrameSpec | undefined = frame;
    while (current && current.id !== ancestorId) {
      const grant = this.grant(current);
      if (!grant.granted) {
        return {
          granted: false,
          why: current === frame ? grant.why : `${current.id} is refused (${grant.why})`,
        };
      }
      current = this.parentOf(current);
    }
    if (!current) return { granted: false, why: `${ancestorId} is not an ancestor` };
    return {
      granted: true,
      why: frame.id === ancestorId ? 'its own' : 'every embedding grants it',
    };
  }

  /** Is `frame` the `ancestor` itself or one of its descendants? */
  isWithin(frame: FrameSpec, ancestor: FrameSpec): boolean {
    for (let current: FrameSpec | undefined = frame; current; current = this.parentOf(current)) {
      if (current === ancestor) return true;
    }
    return false;
  }

  /** The top-level child frame that contains `frame` (itself for a child; undefined for top). */
  childOf(frame: FrameSpec): FrameSpec | undefined {
    let current: FrameSpec | undefined = frame;
    while (current && current.parent !== TOP_ID) current = this.parentOf(current);
    return current;
  }

  rows(): ToolRow[] {
    const rows: ToolRow[] = [];
    for (const frame of this.#frames.values()) {
      for (const tool of frame.tools) rows.push(this.row(frame, tool));
    }
    return rows;
  }

  row(frame: FrameSpec, tool: ToolSpec): ToolRow {
    const origin = this.originOf(frame);
    const exposedTo = exposedToOf(tool.exposure, this.origins);
    const caller = this.origins.A;
    const exposed = exposure(origin, exposedTo, caller);
    const isTop = frame.id === TOP_ID;
    const toTop = this.reaches(frame);
    const agentCut = (base: Expectation): Expectation =>
      tool.agent ? base : { seen: false, why: 'no naturalLanguageProperties: not for agents' };
    const both = (first: Grant, second: Grant): Expectation =>
      !first.granted
        ? { seen: false, why: first.why }
        : { seen: second.granted, why: `${first.why}; ${second.why}` };

    const registered: Expectation =
      tool.via === 'modelContext'
        ? toTop.granted
          ? { seen: true, why: 'allowed to use tools' }
          : { seen: false, why: `registerTool rejects NotAllowedError: ${toTop.why}` }
        : { seen: true, why: 'toolManager.register needs no permission' };
    const top = isTop ? { seen: exposed.granted, why: exposed.why } : both(toTop, exposed);

    const child = this.childOf(frame);
    let ofChild: Expectation | null = null;
    if (child && child !== frame) ofChild = both(this.reaches(frame, child.id), exposed);

    const listed =
      origin === caller || this.fromOrigins.includes(origin)
        ? { granted: true, why: origin === caller ? 'same origin' : 'fromOrigins lists it' }
        : { granted: false, why: 'fromOrigins does not list its origin' };
    const modelContext = agentCut(
      both(toTop, {
        granted: listed.granted && exposed.granted,
        why: listed.granted ? exposed.why : listed.why,
      }),
    );

    return {
      frame,
      tool,
      origin,
      exposedTo,
      expected: {
        registered,
        top,
        agent: agentCut(top),
        of: { seen: exposed.granted, why: `direct read, no permission needed; ${exposed.why}` },
        ofChild,
        modelContext,
      },
    };
  }
}
