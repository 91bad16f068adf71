/**
 * The prompt a link's first pairing shows the person at the page.
 *
 * - It names the host's address and what the page allows (its guard), and takes one click to
 *   connect and one to dismiss. Escape dismisses.
 * - A non-modal `role="dialog"` with a label and a description, focused when it opens so a
 *   screen reader announces it; Tab reaches both buttons; focus goes back where it was.
 * - Rendered in a shadow root, so the page's styles neither hide nor restyle it, and built with
 *   `textContent` only: the address is text, never markup.
 * - No button has focus at first: a key press meant for the page cannot connect it.
 * - Connect ignores every activation (a click, Enter or Space, whatever clicks it) until the
 *   prompt has been on screen for half a second: a click or key press aimed at the page as the
 *   prompt appears under it connects nothing. Meanwhile the button is `aria-disabled`. A tab
 *   hidden meanwhile starts the half second again once it is shown.
 * - It shows the pairing phrase of the link's code (`pairingPhrase`), the words the terminal
 *   printed beside the link, so the person can tell their link from one a site slipped them.
 */

export interface PairingRequest {
  /** The host's WebSocket address, without any secret. */
  address: string;
  /** The guard's preset name (or a description), as the page author set it. */
  guard: string;
  /** The pairing phrase of the link's code, as the host printed it beside the link. */
  phrase?: string;
}

/** How long Connect ignores activation once the prompt shows (and again when it shows again). */
const ARMING_MS = 500;

const GUARD_WORDS: Record<string, string> = {
  disabled: 'no tools (discovery and calls are off)',
  'read-only': 'read-only tools: they read the page, and change nothing',
  'read-write': 'read and write tools: they may change the page and its data',
  'full-access': 'every tool, critical ones included',
};

/** What the prompt says the page allows under `guard`. */
export function describeGuard(guard: string): string {
  return GUARD_WORDS[guard] ?? guard;
}

const STYLE = `
:host { all: initial; }
[role=dialog] {
  position: fixed; z-index: 2147483647; right: 16px; bottom: 16px; max-width: 380px;
  box-sizing: border-box; padding: 16px; border-radius: 10px; border: 1px solid #8a8f98;
  background: #fff; color: #1b1d21; font: 14px/1.45 system-ui, sans-serif;
  box-shadow: 0 8px 28px rgba(0, 0, 0, .25);
}
[role=dialog]:focus { outline: 3px solid #2f6fde; outline-offset: 2px; }
h2 { margin: 0 0 6px; font-size: 15px; }
p { margin: 0 0 10px; }
code { font: 13px ui-monospace, monospace; overflow-wrap: anywhere; }
.actions { display: flex; gap: 8px; justify-content: flex-end; }
button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid #5b6270;
  background: #f2f3f5; color: inherit; cursor: pointer; }
button.connect { background: #2f6fde; border-color: #2f6fde; color: #fff; }
button[aria-disabled=true] { opacity: .55; cursor: default; }
.phrase code { font-weight: 600; }
button:focus-visible { outline: 3px solid #2f6fde; outline-offset: 2px; }
`;

/** Shows the prompt; resolves true on Connect, false on Not now or Escape. */
export function askToPair(document: Document, request: PairingRequest): Promise<boolean> {
  return new Promise((resolve) => {
    const host = document.createElement('toolwire-pairing');
    const root = host.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = STYLE;
    const dialog = document.createElement('div');
    dialog.setAttribute('role', 'dialog');
    dialog.setAttribute('aria-modal', 'false');
    dialog.setAttribute('aria-labelledby', 'toolwire-pairing-title');
    dialog.setAttribute(
      'aria-describedby',
      request.phrase ? 'toolwire-pairing-text toolwire-pairing-phrase' : 'toolwire-pairing-text',
    );
    dialog.tabIndex = -1;
    const title = document.createElement('h2');
    title.id = 'toolwire-pairing-title';
    title.textContent = 'Connect this tab to toolwire?';
    const text = document.createElement('p');
    text.id = 'toolwire-pairing-text';
    const address = document.createElement('code');
    address.textContent = request.address;
    const allowed = document.createElement('strong');
    allowed.textContent = describeGuard(request.guard);
    text.append(
      'A link asks to connect this page to the toolwire host at ',
      address,
      '. It could then use ',
      allowed,
      '. Connect only if you started that host.',
    );
    const check = document.createElement('p');
    if (request.phrase) {
      check.id = 'toolwire-pairing-phrase';
      check.className = 'phrase';
      const phrase = document.createElement('code');
      phrase.textContent = request.phrase;
      check.append('Check that your terminal shows: ', phrase);
    }
    const actions = document.createElement('div');
    actions.className = 'actions';
    const dismiss = document.createElement('button');
    dismiss.type = 'button';
    dismiss.textContent = 'Not now';
    const connect = document.createElement('button');
    connect.type = 'button';
    connect.className = 'connect';
    connect.textContent = 'Connect';
    actions.append(dismiss, connect);
    dialog.append(title, text, ...(request.phrase ? [check] : []), actions);
    root.append(style, dialog);

    const previous = document.activeElement as HTMLElement | null;
    // Connect is armed half a second after the prompt is on screen (shown, in a visible tab).
    let armed = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      armed = false;
      connect.setAttribute('aria-disabled', 'true');
      if (document.visibilityState === 'hidden') return;
      timer = setTimeout(() => {
        armed = true;
        connect.removeAttribute('aria-disabled');
      }, ARMING_MS);
    };
    let done = false;
    const finish = (answer: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', arm);
      host.remove();
      if (previous && previous !== document.body && previous.isConnected) previous.focus?.();
      resolve(answer);
    };
    connect.addEventListener('click', () => {
      if (armed) finish(true);
    });
    dismiss.addEventListener('click', () => finish(false), { once: true });
    dialog.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        finish(false);
      }
    });
    (document.body ?? document.documentElement).append(host);
    dialog.focus();
    arm();
    document.addEventListener('visibilitychange', arm);
  });
}
