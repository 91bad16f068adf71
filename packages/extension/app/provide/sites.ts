/**
 * "Provide WebMCP on this site": the origins a person chose, kept in `chrome.storage.local`,
 * and one dynamic content script per origin (id `provide:<origin>`) that installs toolwire's
 * polyfill there (./provider.ts, built as `content/provide.js`): MAIN world, `document_start`,
 * every frame of that origin, kept across browser sessions. Nothing is ever registered for an
 * origin that is not in the stored list: `reconcile()` (run when the service worker starts)
 * removes any registration storage does not name, and adds the ones it names but the browser
 * lost.
 */

/** The storage key of the chosen origins (a list of canonical http(s) origins). */
export const PROVIDE_KEY = 'provide.origins';
/** The prefix of each registration's id; the rest is the origin. */
const PROVIDE_ID_PREFIX = 'provide:';
/** The provider script, as the built extension holds it. */
const PROVIDER_FILE = 'content/provide.js';

/** The parts of `chrome.scripting` and `chrome.storage.local` this module uses. */
export interface ProvideApi {
  scripting: Pick<
    typeof chrome.scripting,
    'registerContentScripts' | 'unregisterContentScripts' | 'getRegisteredContentScripts'
  >;
  storage: {
    get(key: string): Promise<Record<string, unknown>>;
    set(items: Record<string, unknown>): Promise<void>;
  };
}

/** A coded refusal (an origin that cannot be provided). */
export class ProvideError extends Error {
  override name = 'ProvideError';
  constructor(
    readonly code: 'provide_origin_invalid',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The canonical origin of an http(s) URL or origin, or undefined (another scheme, an opaque
 * origin, credentials or a path are not an origin a person chose).
 */
export function siteOrigin(url: string | undefined): string | undefined {
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  // A host a match pattern reads literally: names, IPv4 and bracketed IPv6 only. The URL
  // parser lets `*` through (`http://*.example`), which a pattern would read as a wildcard.
  if (!/^(?:[a-z0-9_-]+\.)*[a-z0-9_-]+\.?$|^\[[0-9a-f:.]+\]$/.test(parsed.hostname))
    return undefined;
  return parsed.origin;
}

function checkedOrigin(origin: string): string {
  const canonical = siteOrigin(origin);
  if (canonical === undefined || canonical !== origin)
    throw new ProvideError(
      'provide_origin_invalid',
      `Not an http(s) origin: ${JSON.stringify(origin).slice(0, 200)}.`,
    );
  return canonical;
}

/**
 * The match pattern for exactly one origin: its scheme, host and port (a pattern with a port
 * matches that port only; without one, the scheme's default port).
 */
export function originPattern(origin: string): string {
  return `${checkedOrigin(origin)}/*`;
}

/** The registration that provides WebMCP to `origin`. */
export function registrationFor(origin: string): chrome.scripting.RegisteredContentScript {
  return {
    id: `${PROVIDE_ID_PREFIX}${origin}`,
    js: [PROVIDER_FILE],
    matches: [originPattern(origin)],
    world: 'MAIN',
    runAt: 'document_start',
    allFrames: true,
    persistAcrossSessions: true,
  };
}

/** The origins stored as chosen (anything malformed in storage is dropped). */
export async function chosenOrigins(api: ProvideApi): Promise<string[]> {
  const stored = (await api.storage.get(PROVIDE_KEY))[PROVIDE_KEY];
  if (!Array.isArray(stored)) return [];
  const out: string[] = [];
  for (const entry of stored)
    if (typeof entry === 'string' && siteOrigin(entry) === entry && !out.includes(entry))
      out.push(entry);
  return out;
}

/** Is WebMCP provided to `origin` (chosen, per storage)? */
export async function isProvided(api: ProvideApi, origin: string): Promise<boolean> {
  return (await chosenOrigins(api)).includes(origin);
}

async function ownRegistrations(
  api: ProvideApi,
): Promise<chrome.scripting.RegisteredContentScript[]> {
  const all = await api.scripting.getRegisteredContentScripts();
  return all.filter((script) => script.id.startsWith(PROVIDE_ID_PREFIX));
}

/** Does a registration still say what `registrationFor(origin)` says? */
function current(script: chrome.scripting.RegisteredContentScript, origin: string): boolean {
  const wanted = registrationFor(origin);
  return (
    JSON.stringify(script.matches) === JSON.stringify(wanted.matches) &&
    JSON.stringify(script.js) === JSON.stringify(wanted.js) &&
    script.world === 'MAIN' &&
    script.runAt === 'document_start' &&
    script.allFrames === true &&
    script.persistAcrossSessions !== false
  );
}

/**
 * Turns providing on or off for `origin`: on stores the origin, then registers its script; off
 * unregisters it, then forgets the origin. The tab must reload for it to take effect (the
 * polyfill must run before the page's scripts).
 */
export async function setProvided(api: ProvideApi, origin: string, on: boolean): Promise<void> {
  checkedOrigin(origin);
  await exclusive(async () => {
    const chosen = await chosenOrigins(api);
    const id = `${PROVIDE_ID_PREFIX}${origin}`;
    const registered = (await ownRegistrations(api)).some((script) => script.id === id);
    if (on) {
      if (!chosen.includes(origin)) await api.storage.set({ [PROVIDE_KEY]: [...chosen, origin] });
      if (registered) return;
      try {
        await api.scripting.registerContentScripts([registrationFor(origin)]);
      } catch (error) {
        // Not registered: not chosen either, so storage never names a site left unprovided.
        if (!chosen.includes(origin)) await api.storage.set({ [PROVIDE_KEY]: chosen });
        throw error;
      }
    } else {
      if (registered) await api.scripting.unregisterContentScripts({ ids: [id] });
      if (chosen.includes(origin))
        await api.storage.set({ [PROVIDE_KEY]: chosen.filter((entry) => entry !== origin) });
    }
  });
}

/**
 * Runs `work` alone among this extension's pages and its service worker (the Web Locks API,
 * shared by the extension's origin): the panel's change and the worker's reconcile each read
 * storage and the registrations, then act, and must not interleave. Where there are no locks
 * (Node), it just runs.
 */
function exclusive<T>(work: () => Promise<T>): Promise<T> {
  const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
  return typeof locks?.request === 'function' ? locks.request('toolwire-provide', work) : work();
}

/**
 * Makes the browser's registrations say what storage says: every `provide:` registration for
 * an origin nobody chose (or that no longer matches what this version registers) goes, every
 * chosen origin without one gets it. Returns the origins provided afterwards.
 */
export function reconcile(api: ProvideApi): Promise<string[]> {
  return exclusive(() => reconcileNow(api));
}

async function reconcileNow(api: ProvideApi): Promise<string[]> {
  const chosen = await chosenOrigins(api);
  const stale: string[] = [];
  const kept = new Set<string>();
  for (const script of await ownRegistrations(api)) {
    const origin = script.id.slice(PROVIDE_ID_PREFIX.length);
    if (chosen.includes(origin) && current(script, origin)) kept.add(origin);
    else stale.push(script.id);
  }
  if (stale.length > 0) await api.scripting.unregisterContentScripts({ ids: stale });
  const missing = chosen.filter((origin) => !kept.has(origin));
  if (missing.length > 0) await api.scripting.registerContentScripts(missing.map(registrationFor));
  return chosen;
}

/** The extension's own `chrome.scripting` and `chrome.storage.local`. */
export function chromeProvideApi(): ProvideApi {
  return {
    scripting: chrome.scripting,
    storage: {
      get: (key) => chrome.storage.local.get(key),
      set: (items) => chrome.storage.local.set(items),
    },
  };
}
