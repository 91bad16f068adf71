/**
 * A document's links to its neighbours in the frame tree: one up to its parent, one down to
 * each child that said hello (keyed by the child's window), and where each child sits among
 * `window.frames` (routes are frame indices).
 */
import type { FrameLink } from './link.js';

export class Neighbours {
  parent: FrameLink | undefined;
  readonly children = new Map<Window, FrameLink>();
  #win: Window;
  #waiters = new Map<Window, ((link: FrameLink | undefined) => void)[]>();

  constructor(win: Window) {
    this.#win = win;
  }

  /** The child at this index of `window.frames`, once it has a link. */
  childAt(index: number): FrameLink | undefined {
    const win = this.#win.frames[index];
    return win ? this.children.get(win) : undefined;
  }

  indexOf(link: FrameLink): number {
    const frames = this.#win.frames;
    for (let i = 0; i < frames.length; i++) if (frames[i] === link.window) return i;
    return -1;
  }

  /** Waits (up to `deadline` ms) for a child frame's handshake. */
  whenChild(win: Window, deadline: number): Promise<FrameLink | undefined> {
    const link = this.children.get(win);
    if (link && !link.closed) return Promise.resolve(link);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), deadline);
      const list = this.#waiters.get(win) ?? [];
      list.push((found) => {
        clearTimeout(timer);
        resolve(found);
      });
      this.#waiters.set(win, list);
    });
  }

  /** A child's link is up: whoever waits for that child gets it. */
  welcomed(win: Window, link: FrameLink): void {
    for (const waiter of this.#waiters.get(win) ?? []) waiter(link);
    this.#waiters.delete(win);
  }

  removeChild(link: FrameLink): void {
    for (const [win, child] of this.children) if (child === link) this.children.delete(win);
  }

  /** Every open link, but `except`. */
  openLinks(except: FrameLink | undefined): FrameLink[] {
    return [this.parent, ...this.children.values()].filter(
      (link): link is FrameLink => link !== undefined && link !== except && !link.closed,
    );
  }
}
