/**
 * Change notices: a registration anywhere floods through the tree (never back where it came
 * from), coalesced per tick, so every document can fire `toolchange` for what it sees:
 * `window.tools` for its coalesced subtree, `tools.of(frame)` objects for theirs, and
 * document.modelContext for tools exposed to it.
 */
import { isCanonicalOrigin } from '../lib/origins.js';
import type { NodeContext } from './context.js';
import type { FrameLink } from './link.js';
import type { ChangeNotice } from './messages.js';
import { isOriginClaim } from './sanitize.js';

export class ChangeNotices {
  #node: NodeContext;
  #remoteListeners = new Set<{ route: number[]; fire(): void }>();
  #pendingChanges: ChangeNotice[] | null = null;
  #queued = new Set<'tools' | 'spec'>();

  constructor(node: NodeContext) {
    this.#node = node;
  }

  /** Every origin this document's tools are exposed to (what a new parent hears of at once). */
  allExposures(): string[] {
    const origins = new Set<string>();
    for (const entry of this.#node.deps.registry.values())
      for (const origin of entry.exposedTo) origins.add(origin);
    return [...origins];
  }

  receive(received: ChangeNotice, from: FrameLink): void {
    if (!isOriginClaim(received.origin)) return;
    const change: ChangeNotice = {
      origin: received.origin,
      exposedTo: received.exposedTo.filter((origin) => origin === '*' || isCanonicalOrigin(origin)),
      agent: received.agent,
    };
    const fromChild = from !== this.#node.links.parent;
    if (fromChild && from.grant) this.#notify('tools');
    if (fromChild) {
      const index = this.#node.links.indexOf(from);
      for (const listener of this.#remoteListeners)
        if (listener.route[0] === index) listener.fire();
    }
    this.broadcast(change, from);
  }

  /** A child's link closed: everything it held is gone, for every listener. */
  childLeft(link: FrameLink): void {
    this.#notify('tools');
    this.broadcast({ origin: link.origin, exposedTo: ['*'], agent: true }, link);
    for (const listener of this.#remoteListeners) listener.fire();
  }

  /** Floods a change through the tree (never back where it came from), coalesced per tick. */
  broadcast(change: ChangeNotice, from: FrameLink | undefined): void {
    const node = this.#node;
    const exposed =
      change.origin === node.origin ||
      change.exposedTo.includes('*') ||
      change.exposedTo.includes(node.origin);
    if (from !== undefined && change.agent && exposed && node.gate.allowed === true)
      this.#notify('spec');
    const targets = node.links.openLinks(from);
    if (targets.length === 0) return;
    if (!this.#pendingChanges) {
      this.#pendingChanges = [];
      queueMicrotask(() => this.#flushChanges(targets));
    }
    if (this.#pendingChanges.length < 16) this.#pendingChanges.push(change);
  }

  #flushChanges(targets: FrameLink[]): void {
    const changes = this.#pendingChanges ?? [];
    this.#pendingChanges = null;
    // Many changes in one tick travel as one wildcard notice.
    const merged =
      changes.length === 1
        ? changes
        : [{ origin: this.#node.origin, exposedTo: ['*'], agent: true }];
    for (const link of targets) for (const change of merged) link.changed(change);
  }

  /** Change events, at most one of each kind per microtask (a flood of notices is one event). */
  #notify(kind: 'tools' | 'spec'): void {
    const first = this.#queued.size === 0;
    this.#queued.add(kind);
    if (!first) return;
    queueMicrotask(() => {
      const kinds = [...this.#queued];
      this.#queued.clear();
      for (const queued of kinds) {
        if (queued === 'tools') this.#node.deps.toolsChanged();
        else this.#node.deps.specChanged();
      }
    });
  }

  /** tools.of(frame) objects hear about changes in their subtree. */
  watch(route: number[], fire: () => void): void {
    this.#remoteListeners.add({ route, fire });
  }
}
