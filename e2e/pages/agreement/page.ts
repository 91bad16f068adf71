// The agreement page (e2e/declarative-agreement.e2e.ts): form tools of every shape, the
// polyfill (from source; on a browser with its own declarative support, the browser's forms),
// and the endpoint serving them to the test's host, whose URL is the fragment.
import { connect } from '../../../packages/endpoint/src/index.js';
import { install } from '../../../packages/polyfill/src/index.js';

install();

/** What a form would submit: each name's value, a list where a name has several. */
function submission(form: HTMLFormElement): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of new FormData(form)) {
    const text = String(value);
    const had = out[name];
    out[name] = had === undefined ? text : Array.isArray(had) ? [...had, text] : [had, text];
  }
  return out;
}

for (const form of document.forms) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const answer = event as SubmitEvent & { respondWith?(value: Promise<unknown>): void };
    if ((answer as { agentInvoked?: boolean }).agentInvoked)
      answer.respondWith?.(Promise.resolve(submission(form)));
  });
}

type Outcome = { ok: true; result: unknown } | { ok: false; name: string; message: string };

/** The page's own road: document.modelContext.executeTool, started and read apart. */
const running = new Map<string, Promise<Outcome>>();
const agree = {
  async start(name: string, args: unknown): Promise<void> {
    const mc = (document as unknown as { modelContext: any }).modelContext;
    const tool = (await mc.getTools()).find((entry: { name: string }) => entry.name === name);
    running.set(
      name,
      mc.executeTool(tool, args).then(
        (text: string | null) => ({ ok: true, result: text === null ? null : JSON.parse(text) }),
        (error: Error) => ({ ok: false, name: error.name, message: error.message }),
      ),
    );
  },
  outcome(name: string): Promise<Outcome> {
    return running.get(name) as Promise<Outcome>;
  },
  /** Settled (refused or answered) yet? */
  async settled(name: string): Promise<boolean> {
    const pending = Symbol('pending');
    return (await Promise.race([running.get(name), Promise.resolve(pending)])) !== pending;
  },
  /** Filled and waiting for the user: the polyfill's attribute, or Chromium's pseudo-class. */
  active(id: string): boolean {
    const form = document.getElementById(id) as HTMLFormElement;
    if (form.hasAttribute('data-tool-form-active')) return true;
    try {
      return form.matches(':tool-form-active');
    } catch {
      return false; // a browser without the pseudo-class
    }
  },
  /** Every form back to its first state, before each call. */
  reset(): void {
    for (const form of document.forms) form.reset();
  },
};

Object.assign(window, { agree });
const url = decodeURIComponent(location.hash.slice(1));
connect({ url, guard: 'read-write', catalogChangedDelayMs: 20 });
