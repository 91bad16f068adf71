/**
 * What this frame accepts from another: every listing, request and change notice from a
 * neighbour is untrusted input, checked here before anything reads it further (README
 * "Frames: what a parent keeps of a child's listing").
 */
import { isCanonicalOrigin, trustworthyOrigin } from '../lib/origins.js';
import type { FrameRequest, ToolDescriptor } from './messages.js';
import { isRecord } from './messages.js';
import { MAX_ROUTE_DEPTH, windowAtRoute } from './route.js';

/**
 * The most tools one frame contributes to its ancestors' listings; the rest are dropped, with one
 * console warning per frame. A widget needs tens; 256 lets a page and three full frames share one
 * wire listing (1,000 tools), and bounds what one frame makes every ancestor clone and check.
 */
export const MAX_TOOLS_PER_FRAME = 256;

/** An origin a request or notice may name: canonical, or 'null' (an opaque document's). */
export function isOriginClaim(value: string): boolean {
  return value === 'null' || isCanonicalOrigin(value);
}

export function canonicalClaims(request: FrameRequest): boolean {
  if (!isOriginClaim(request.caller) || !request.via.every(isOriginClaim)) return false;
  switch (request.op) {
    case 'list':
      return request.fromOrigins === null || request.fromOrigins.every(isCanonicalOrigin);
    case 'tree-list':
      return request.fromOrigins.every(isCanonicalOrigin);
    default:
      return request.origin === null || isCanonicalOrigin(request.origin);
  }
}

/**
 * What the asking frame would have listed itself (visible() in listing.ts, from a descriptor):
 * a child's answer is checked again, so a frame that ignores agentOnly or the fromOrigins double
 * opt-in gains nothing by it.
 */
export function listable(
  tool: ToolDescriptor,
  caller: string,
  agentOnly: boolean,
  fromOrigins: string[] | null,
): boolean {
  if (agentOnly && !tool.agentExposed) return false;
  if (fromOrigins === null) return true;
  return tool.agentExposed && (tool.origin === caller || fromOrigins.includes(tool.origin));
}

export interface SanitizeContext {
  /** The answering frame's attested origin; undefined when routes start at the top (treeList). */
  peerOrigin: string | undefined;
  /** The asking frame's origin. */
  ownOrigin: string;
  /** The window the descriptors' routes start from; a route that leads nowhere from it is dropped. */
  base: Window | undefined;
}

/**
 * Descriptors from another frame are untrusted: keep only well-formed ones. Every origin must be
 * a potentially trustworthy origin in its canonical form. A tool the answering frame owns
 * (route []) must carry that frame's attested origin; a tool from deeper down may not claim the
 * asking frame's origin unless the answering frame has it too (it cannot pass its subtree off as
 * same-origin with us). A route must lead to a frame that exists. Duplicates are dropped, and so
 * is everything past MAX_TOOLS_PER_FRAME in one frame (`onCapped` hears of each such frame).
 */
export function sanitize(
  value: unknown,
  context: SanitizeContext,
  onCapped?: (origin: string, route: number[], listed: number) => void,
): ToolDescriptor[] {
  if (!Array.isArray(value)) return [];
  const { peerOrigin, ownOrigin, base } = context;
  const seen = new Set<string>();
  /** Per route: does it lead to a frame (checked once), and how many tools it listed. */
  const frames = new Map<string, { exists: boolean; listed: number; origin: string }>();
  /** Origins repeat: each distinct string is parsed once. */
  const origins = new Map<string, boolean>();
  const out: ToolDescriptor[] = [];
  for (const item of value.slice(0, 10_000)) {
    if (typeof item !== 'object' || item === null) continue;
    const tool = item as Record<string, unknown>;
    const route = tool.route;
    if (
      typeof tool.name !== 'string' ||
      typeof tool.origin !== 'string' ||
      typeof tool.key !== 'number' ||
      !Array.isArray(route) ||
      route.length > MAX_ROUTE_DEPTH ||
      !route.every((step) => Number.isInteger(step) && step >= 0)
    ) {
      continue;
    }
    const origin = tool.origin;
    let trusted = origins.get(origin);
    if (trusted === undefined) {
      trusted = trustworthyOrigin(origin) === origin;
      origins.set(origin, trusted);
    }
    if (!trusted) continue;
    if (peerOrigin !== undefined) {
      if (route.length === 0 && origin !== peerOrigin) continue;
      if (route.length > 0 && origin === ownOrigin && peerOrigin !== ownOrigin) continue;
    }
    const routeKey = route.join('/');
    let frame = frames.get(routeKey);
    if (!frame) {
      frame = {
        exists: base !== undefined && windowAtRoute(base, route as number[]) !== undefined,
        listed: 0,
        origin,
      };
      frames.set(routeKey, frame);
    }
    if (!frame.exists) continue;
    const identity = `${routeKey}|${origin}|${tool.name}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    frame.listed++;
    if (frame.listed > MAX_TOOLS_PER_FRAME) continue;
    out.push({
      name: tool.name,
      title: typeof tool.title === 'string' ? tool.title : '',
      description: typeof tool.description === 'string' ? tool.description : '',
      inputSchema: isRecord(tool.inputSchema) ? tool.inputSchema : undefined,
      outputSchema: isRecord(tool.outputSchema) ? tool.outputSchema : undefined,
      annotations: isRecord(tool.annotations)
        ? (tool.annotations as Record<string, boolean>)
        : undefined,
      origin,
      agentExposed: tool.agentExposed === true,
      policy: tool.policy === 'read' || tool.policy === 'critical' ? tool.policy : 'write',
      category: typeof tool.category === 'string' ? tool.category : undefined,
      keywords: strings(tool.keywords),
      prerequisites: strings(tool.prerequisites),
      runtime: isRecord(tool.runtime) ? tool.runtime : null,
      key: tool.key,
      route: route as number[],
    });
  }
  if (onCapped) {
    for (const [routeKey, frame] of frames) {
      if (frame.listed > MAX_TOOLS_PER_FRAME)
        onCapped(
          frame.origin,
          routeKey === '' ? [] : routeKey.split('/').map(Number),
          frame.listed,
        );
    }
  }
  return out;
}

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string').slice(0, 64)
    : [];
}
