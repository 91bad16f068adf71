/**
 * The session panel: connection state, the catalog revision, and the live log of what the host
 * asked and what the page answered. One `<details>` per exchange: a one-line summary, and the
 * request and the response pretty-printed inside.
 */
import type { Session } from '../../packages/endpoint/src/index.js';
import { decodePayload } from '../../packages/protocol/src/index.js';
import { clock, element, isRecord, oneLine, pretty } from './format.js';

const MAX_ENTRIES = 200;

interface Pending {
  started: number;
  entry: HTMLDetailsElement;
}

interface RequestDetail {
  type?: unknown;
  id?: unknown;
  toolId?: unknown;
  message?: unknown;
}

const STATE_TEXT = {
  unpaired: 'not paired',
  connecting: 'connecting…',
  open: 'connected',
  closed: 'closed',
} as const;

export type PanelState = keyof typeof STATE_TEXT;

export class SessionPanel {
  #log = document.getElementById('log') as HTMLDivElement;
  #pending = new Map<string, Pending>();
  #requests = 0;
  #errors = 0;

  constructor() {
    document.getElementById('log-expand')?.addEventListener('click', () => this.#toggleAll(true));
    document
      .getElementById('log-collapse')
      ?.addEventListener('click', () => this.#toggleAll(false));
    document.getElementById('log-clear')?.addEventListener('click', () => {
      this.#log.replaceChildren();
      this.#pending.clear();
    });
    this.#renderTraffic();
  }

  /** Follow one session's events. */
  attach(session: Session, hostLabel: string): void {
    text('fact-host', hostLabel);
    document.getElementById('unpaired-help')?.remove();
    const update = () => this.setState(session.status);
    session.addEventListener('statuschange', update);
    update();
    session.addEventListener('request', (event) => {
      this.#onRequest((event as CustomEvent<RequestDetail>).detail);
    });
    session.addEventListener('response', (event) => {
      this.#onResponse((event as CustomEvent<unknown>).detail);
    });
    session.addEventListener('close', (event) => {
      const { code, willRetry } = (event as CustomEvent<{ code: number; willRetry: boolean }>)
        .detail;
      this.#note(`connection closed (${code})${willRetry ? ', reconnecting' : ''}`);
    });
    session.addEventListener('open', () => this.#note('connected: session.open sent'));
  }

  setState(state: PanelState): void {
    const status = document.getElementById('status') as HTMLElement;
    status.dataset.status = state;
    status.textContent = STATE_TEXT[state];
    text('fact-state', STATE_TEXT[state]);
  }

  setRevision(revision: string | undefined, availability: string | undefined, count: number) {
    if (!revision) return;
    const node = document.getElementById('fact-revision') as HTMLElement;
    const short = (value: string) => value.replace(/^sha256:/, '').slice(0, 10);
    node.replaceChildren(
      'revision ',
      element('code', '', short(revision)),
      ` · ${count} tools`,
      ...(availability ? [' · availability ', element('code', '', short(availability))] : []),
    );
    node.title = `revision ${revision}${availability ? `, availability ${availability}` : ''}`;
  }

  #onRequest(detail: RequestDetail): void {
    const message = isRecord(detail.message) ? detail.message : undefined;
    const type = String(detail.type ?? '?');
    const id = String(detail.id ?? '');
    const payload = isRecord(message?.payload) ? message.payload : {};
    this.#requests++;
    const entry = element('details', 'exchange');
    entry.dataset.type = type;
    entry.dataset.state = 'pending';
    if (typeof detail.toolId === 'string') entry.dataset.tool = detail.toolId;
    const summary = element(
      'summary',
      'ex-head',
      element('span', 'time', clock(new Date())),
      element('span', `kind kind-${type.split('.')[1] ?? 'other'}`, type.replace('tool.', '')),
      ...describeRequest(type, payload),
      element('span', 'outcome', '…'),
    );
    entry.append(
      summary,
      element(
        'div',
        'exchange-body',
        element('div', '', element('h4', '', 'request'), element('pre', '', pretty(message))),
        element('div', 'response', element('h4', '', 'response'), element('pre', '', 'waiting…')),
      ),
    );
    this.#log.prepend(entry);
    while (this.#log.childElementCount > MAX_ENTRIES) this.#log.lastElementChild?.remove();
    this.#pending.set(id, { started: performance.now(), entry });
    this.#renderTraffic();
  }

  #onResponse(response: unknown): void {
    if (!isRecord(response)) return;
    const pending = this.#pending.get(String(response.replyTo ?? ''));
    if (!pending) return;
    this.#pending.delete(String(response.replyTo));
    let payload: unknown;
    try {
      payload = decodePayload(response.payload);
    } catch {
      payload = response.payload;
    }
    const { entry } = pending;
    const outcome = describeResponse(String(response.type), payload);
    entry.dataset.state = outcome.ok ? 'ok' : 'error';
    if (!outcome.ok) this.#errors++;
    const ms = Math.round(performance.now() - pending.started);
    entry
      .querySelector('.outcome')
      ?.replaceWith(
        element('span', `outcome ${outcome.ok ? 'ok' : 'bad'}`, outcome.text),
        element('span', 'ms', `${ms} ms`),
      );
    const body = entry.querySelector('.response pre') as HTMLPreElement;
    body.textContent = pretty({ ...response, payload });
    this.#renderTraffic();
  }

  #note(text: string): void {
    this.#log.prepend(element('div', 'note', element('span', 'time', clock(new Date())), text));
  }

  #toggleAll(open: boolean): void {
    for (const entry of this.#log.querySelectorAll('details')) entry.open = open;
  }

  #renderTraffic(): void {
    text(
      'fact-traffic',
      this.#requests === 0
        ? 'no requests yet'
        : `${this.#requests} request${this.#requests === 1 ? '' : 's'} · ${this.#errors} error${this.#errors === 1 ? '' : 's'}`,
    );
  }
}

function text(id: string, value: string): void {
  const node = document.getElementById(id);
  if (node) node.textContent = value;
}

/** The summary's middle: which tool, with what. */
function describeRequest(type: string, payload: Record<string, unknown>): (Node | string)[] {
  if (type === 'tool.call') {
    return [
      element('code', 'tool', String(payload.toolId ?? '?')),
      element('span', 'args', oneLine(payload.arguments ?? {}, 60)),
    ];
  }
  if (type === 'tool.batch') {
    const calls = Array.isArray(payload.calls) ? payload.calls : [];
    const names = calls.map((call) => (isRecord(call) ? String(call.toolId) : '?'));
    return [
      element('code', 'tool', `${calls.length} calls`),
      element('span', 'args', names.join(', ')),
    ];
  }
  if (type === 'tool.query') {
    const detail = String(payload.detail ?? 'index');
    const ids = Array.isArray(payload.ids) ? ` (${payload.ids.length} ids)` : '';
    const conditional = payload.ifRevision ? 'if changed' : '';
    return [element('code', 'tool', `${detail}${ids}`), element('span', 'args', conditional)];
  }
  return [element('span', 'args', '')];
}

/** The summary's end: how it went. */
function describeResponse(type: string, payload: unknown): { ok: boolean; text: string } {
  const body = isRecord(payload) ? payload : {};
  switch (type) {
    case 'tool.result':
      return { ok: true, text: `✓ ${oneLine(body.result, 34)}` };
    case 'tool.batch.result':
      return {
        ok: body.success === true,
        text: `${body.success === true ? '✓' : '✗'} ${body.completed}/${body.requested} done`,
      };
    case 'tool.catalog':
      return {
        ok: true,
        text: Array.isArray(body.tools) ? `✓ ${body.tools.length} tools` : '✓ unchanged',
      };
    case 'tool.error':
      return { ok: false, text: `✗ ${String(body.code ?? 'error')}` };
    default:
      return { ok: true, text: type };
  }
}
