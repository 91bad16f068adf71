/**
 * A `TabToolsClient` stand-in for the connect tests: the test sets the tab's tools and how each
 * call answers (given the call's signal and onProgress), changes the list, and makes the tab go.
 * Pending calls fail with `tab_gone` when it goes, as the real client's do.
 */
import type {
  TabCallOptions,
  TabCallOutcome,
  TabGoneReason,
  TabIdentity,
  TabTool,
  TabToolsClient,
} from '../../src/types.js';

type Answer = (args: unknown, options: TabCallOptions) => TabCallOutcome | Promise<TabCallOutcome>;

export class FakeTabClient implements TabToolsClient {
  readonly tab: TabIdentity;
  tools: TabTool[];
  answers = new Map<string, Answer>();
  calls: { name: string; args: unknown; options: TabCallOptions }[] = [];
  closed = false;
  /** Set by a list() for a tab with no relay. */
  listError: (Error & { code: string }) | undefined;
  #change = new Set<(tools: TabTool[]) => void>();
  #gone = new Set<(reason: TabGoneReason) => void>();
  #pending = new Set<(outcome: TabCallOutcome) => void>();
  #ended = false;

  constructor(tools: TabTool[], tab: Partial<TabIdentity> = {}) {
    this.tools = tools;
    this.tab = {
      tabId: 7,
      title: 'Shop',
      url: 'http://shop.test/cart',
      origin: 'http://shop.test',
      ...tab,
    };
  }

  /** A tab that is still loading: list() answers once the test opens this latch's window. */
  loading: Promise<unknown> | undefined;

  async list(): Promise<TabTool[]> {
    if (this.loading) await this.loading;
    if (this.listError) throw this.listError;
    return this.tools;
  }

  call(name: string, args: unknown, options: TabCallOptions = {}): Promise<TabCallOutcome> {
    this.calls.push({ name, args, options });
    if (this.#ended) return Promise.resolve(gone());
    const answer = this.answers.get(name);
    if (!answer) {
      return Promise.resolve({
        ok: false,
        error: { code: 'tool_not_found', message: `No ${name}.` },
      });
    }
    return new Promise((resolve) => {
      this.#pending.add(resolve);
      void Promise.resolve(answer(args, options)).then((outcome) => {
        this.#pending.delete(resolve);
        resolve(outcome);
      });
    });
  }

  onChange(listener: (tools: TabTool[]) => void): () => void {
    this.#change.add(listener);
    return () => this.#change.delete(listener);
  }

  onGone(listener: (reason: TabGoneReason) => void): () => void {
    this.#gone.add(listener);
    return () => this.#gone.delete(listener);
  }

  close(): void {
    this.closed = true;
    this.go('disconnected');
  }

  /** The page registered or removed tools. */
  change(tools: TabTool[]): void {
    this.tools = tools;
    for (const listener of this.#change) listener(tools);
  }

  /** The tab closed or navigated. */
  go(reason: TabGoneReason): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const settle of this.#pending) settle(gone());
    this.#pending.clear();
    for (const listener of this.#gone) listener(reason);
  }

  get listeners(): number {
    return this.#change.size + this.#gone.size;
  }
}

function gone(): TabCallOutcome {
  return { ok: false, error: { code: 'tab_gone', message: 'The tab closed or navigated.' } };
}

/** A tab tool with defaults. */
export function tabTool(name: string, extra: Partial<TabTool> = {}): TabTool {
  return {
    name,
    description: `${name} of the tab`,
    origin: 'http://shop.test',
    source: 'toolwire',
    policy: 'read',
    ...extra,
  };
}
