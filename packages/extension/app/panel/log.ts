/** The panel's log of calls: newest first, each with its tool, arguments, outcome and time. */
import type { TabCallOutcome } from '../../src/types.js';

const MAX_ENTRIES = 200;

export class CallLog {
  #list: HTMLOListElement;

  constructor(list: HTMLOListElement) {
    this.#list = list;
  }

  /** Adds a pending entry; the returned function completes it with the outcome. */
  start(tool: string, args: unknown): (outcome: TabCallOutcome) => void {
    const doc = this.#list.ownerDocument;
    const item = doc.createElement('li');
    item.className = 'pending';
    const started = performance.now();
    const head = doc.createElement('span');
    head.className = 'log-head';
    head.textContent = `${new Date().toLocaleTimeString()} ${tool}`;
    const detail = doc.createElement('span');
    detail.className = 'log-detail';
    detail.textContent = ` ${JSON.stringify(args)} …`;
    item.append(head, detail);
    this.#list.prepend(item);
    while (this.#list.children.length > MAX_ENTRIES) this.#list.lastElementChild?.remove();
    return (outcome) => {
      const ms = Math.round(performance.now() - started);
      item.className = outcome.ok ? 'ok' : 'failed';
      detail.textContent = outcome.ok
        ? ` ${JSON.stringify(args)} → ok (${ms} ms)`
        : ` ${JSON.stringify(args)} → ${outcome.error.code}: ${outcome.error.message} (${ms} ms)`;
    };
  }
}
