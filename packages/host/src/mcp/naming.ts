/**
 * MCP tool names for page tools: unique across the open sessions, and stable for the bridge's
 * lifetime. Two tabs may register the same tool id; both stay callable.
 *
 * 1. A name is the tool id made MCP-safe (`[A-Za-z0-9_-]{1,64}`: `demo.echo` -> `demo_echo`).
 * 2. The first session to offer a name keeps it. A later session offering the same name gets
 *    `<name>__<label>`, its label being the first 8 characters of its session id (the SESSION
 *    column of `toolwire sessions`). Should that be taken too (a page may register any id),
 *    `_2`, `_3`... follow; so they do for two ids of one tab that read alike (`a.b`, `a_b`) and
 *    for a page tool named like one of the bridge's own. Sessions are taken in the order they
 *    connected, then by id, and a session's tools by id, so one listing always names the same way.
 * 3. Once given, a name belongs to its origin for the bridge's lifetime: the upgrade's `Origin`
 *    header of the session it was given to (`connectedFrom`, the browser's word, not the page's).
 *    While that session is open the name stays with its (session, tool id), even while the page
 *    has unregistered the tool. When it closes the name is dormant: no tab of another origin
 *    gets it, ever (theirs are suffixed as in 2); a tab of the same origin may take it back.
 *    "Its tab, when it comes back": a session whose `session.open` carries the same page
 *    session key (the endpoint's, kept across its reconnects) and the same origin takes back
 *    the very names it had, suffixed ones too, before anyone else (once its key is known: a
 *    tool named before `session.open` arrived is named by the plain rule). A reload is a new
 *    page, with a new key: it takes back its origin's dormant names by the plain rule (2).
 *    Sessions whose source cannot say their origin (null) share one owner, "unknown", which
 *    no session of a known origin is.
 * 4. The bridge's own tools (`toolwire_pair`, `toolwire_sessions`, `toolwire_call`) are never
 *    a page tool's name: a page cannot shadow them.
 * 5. What is kept is bounded: past 1,000 reservations beyond its listed tools, a session's
 *    unlisted tools' names go dormant; past 1,000 dormant names of one origin, the oldest are
 *    forgotten (and free again). An origin can only ever crowd out its own names.
 * 6. A name no listed tool has may still mean a withheld one (hidden by its page's guard, or
 *    above the grant), which then answers why instead of "Unknown tool" (`withheldNamed`): the
 *    name it was given while listed, its plain name, or its name with its tab's label.
 */
import type { McpSourceTool, McpWithheldTool } from './source.js';

const MAX_NAME = 64;
const SPARE_RESERVATIONS = 1000;

/** `demo.echo` -> `demo_echo`: the name pattern every MCP client accepts. */
export function mcpToolName(id: string): string {
  const name = id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_NAME);
  return name === '' ? 'tool' : name;
}

/** A session's short label: the first 8 letters or digits of its id (`toolwire sessions`). */
export function sessionLabel(sessionId: string): string {
  const label = sessionId
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 8)
    .toLowerCase();
  return label === '' ? 'session' : label;
}

/** `name` with `suffix` after it, the name cut so the whole stays within 64 characters. */
function suffixed(name: string, suffix: string): string {
  return `${name.slice(0, MAX_NAME - suffix.length)}${suffix}`;
}

/** Who a session is, for naming: its origin and its page's session key. */
export interface McpNamingSession {
  id: string;
  /** The upgrade's `Origin` header; null when the source cannot say (owned as "unknown"). */
  connectedFrom: string | null;
  /** The page's session key from `session.open`; null or absent until it says one. */
  key?: string | null;
}

/** A name given once, for the bridge's lifetime. */
interface Owned {
  origin: string | null;
  /** The page's session key when it was given (null: not known then). */
  key: string | null;
  toolId: string;
  /** The open session holding it; null while it is dormant. */
  sessionId: string | null;
}

/** Names page tools for one bridge, remembering what it gave. */
export class McpToolNames {
  readonly #reserved: ReadonlySet<string>;
  /** Open session id -> tool id -> name. */
  readonly #given = new Map<string, Map<string, string>>();
  /** Every name given, by name; dormant ones last, the oldest first. */
  readonly #owned = new Map<string, Owned>();

  constructor(reserved: Iterable<string>) {
    this.#reserved = new Set(reserved);
  }

  /**
   * The names of `entries` (each open session's offered tools), given `open`, every open
   * session (an id alone: a session whose origin the source does not say). The names of
   * sessions not in it go dormant first.
   */
  assign(
    entries: readonly McpSourceTool[],
    open: Iterable<string | McpNamingSession>,
  ): Map<string, McpSourceTool> {
    const who = new Map<string, McpNamingSession>();
    for (const one of open) {
      const session = typeof one === 'string' ? { id: one, connectedFrom: null } : one;
      who.set(session.id, session);
    }
    for (const entry of entries) {
      if (!who.has(entry.sessionId))
        who.set(entry.sessionId, { id: entry.sessionId, connectedFrom: null });
    }
    for (const [sessionId, names] of this.#given) {
      if (who.has(sessionId)) continue;
      for (const name of names.values()) this.#sleep(name);
      this.#given.delete(sessionId);
    }
    const ordered = [...entries].sort(
      (a, b) =>
        a.connectedAt - b.connectedAt ||
        compare(a.sessionId, b.sessionId) ||
        compare(a.tool.id, b.tool.id),
    );
    // The dormant names a returning tab takes back: origin, page key, tool id -> name.
    const returning = new Map<string, string>();
    for (const [name, owned] of this.#owned) {
      if (owned.sessionId === null && owned.key !== null) {
        returning.set(tabKey(owned.origin, owned.key, owned.toolId), name);
      }
    }
    const named = new Map<string, McpSourceTool>();
    const unnamed: McpSourceTool[] = [];
    // First what each session holds, or takes back as the tab it was.
    for (const entry of ordered) {
      const session = who.get(entry.sessionId) as McpNamingSession;
      const names = this.#namesOf(entry.sessionId);
      let name = names.get(entry.tool.id);
      if (
        name !== undefined &&
        (this.#owned.get(name)?.sessionId !== entry.sessionId || named.has(name))
      ) {
        name = undefined;
      }
      if (name === undefined && session.key) {
        const back = returning.get(tabKey(session.connectedFrom, session.key, entry.tool.id));
        if (back !== undefined && this.#owned.get(back)?.sessionId === null) {
          name = back;
          this.#hold(name, entry, session);
        }
      }
      if (name === undefined) unnamed.push(entry);
      else named.set(name, entry);
    }
    // Then new names, in the same order.
    for (const entry of unnamed) {
      const session = who.get(entry.sessionId) as McpNamingSession;
      const name = this.#pick(entry, session.connectedFrom);
      this.#hold(name, entry, session);
      named.set(name, entry);
    }
    this.#trim(entries);
    return new Map([...named].sort(([a], [b]) => compare(a, b)));
  }

  /** The name `toolId` of `sessionId` was given while listed, while it is kept. */
  given(sessionId: string, toolId: string): string | undefined {
    return this.#given.get(sessionId)?.get(toolId);
  }

  /**
   * The origin that owns `name` while no open session holds it; undefined when
   * the name is held, or was never given.
   */
  dormant(name: string): { origin: string | null } | undefined {
    const owned = this.#owned.get(name);
    return owned && owned.sessionId === null ? { origin: owned.origin } : undefined;
  }

  #namesOf(sessionId: string): Map<string, string> {
    let names = this.#given.get(sessionId);
    if (!names) {
      names = new Map();
      this.#given.set(sessionId, names);
    }
    return names;
  }

  /** `name` is `entry`'s now, and its origin's for good. */
  #hold(name: string, entry: McpSourceTool, session: McpNamingSession): void {
    const names = this.#namesOf(entry.sessionId);
    const before = names.get(entry.tool.id);
    if (before !== undefined && before !== name) this.#sleep(before);
    names.set(entry.tool.id, name);
    this.#owned.delete(name);
    this.#owned.set(name, {
      origin: session.connectedFrom,
      key: session.key ?? null,
      toolId: entry.tool.id,
      sessionId: entry.sessionId,
    });
  }

  /** `name`'s session let go of it: dormant, kept for its origin, now the newest dormant one. */
  #sleep(name: string): void {
    const owned = this.#owned.get(name);
    if (!owned) return;
    this.#owned.delete(name);
    this.#owned.set(name, { ...owned, sessionId: null });
  }

  /** A name no one holds, nor another origin owns, for `entry`. */
  #pick(entry: McpSourceTool, origin: string | null): string {
    const free = (name: string) => {
      if (this.#reserved.has(name)) return false;
      const owned = this.#owned.get(name);
      return owned === undefined || (owned.sessionId === null && owned.origin === origin);
    };
    const plain = mcpToolName(entry.tool.id);
    if (free(plain)) return plain;
    // Another tab's (or another origin's): this tab's label. The bridge's own, or two ids of
    // this tab alike: a number.
    const holder = this.#owned.get(plain)?.sessionId;
    const base =
      holder !== entry.sessionId && !this.#reserved.has(plain)
        ? suffixed(plain, `__${sessionLabel(entry.sessionId)}`)
        : plain;
    if (free(base)) return base;
    for (let n = 2; ; n++) {
      const numbered = suffixed(base, `_${n}`);
      if (free(numbered)) return numbered;
    }
  }

  /** The unlisted names of a session that hoards them go dormant; an origin's
   * oldest dormant names past the bound are forgotten. */
  #trim(entries: readonly McpSourceTool[]): void {
    const listed = new Map<string, Set<string>>();
    for (const entry of entries) {
      const ids = listed.get(entry.sessionId) ?? new Set<string>();
      listed.set(entry.sessionId, ids.add(entry.tool.id));
    }
    for (const [sessionId, names] of this.#given) {
      const ids = listed.get(sessionId) ?? new Set<string>();
      if (names.size <= ids.size + SPARE_RESERVATIONS) continue;
      for (const [id, name] of names) {
        if (ids.has(id)) continue;
        names.delete(id);
        this.#sleep(name);
      }
    }
    const dormant = new Map<string | null, number>();
    for (const owned of this.#owned.values()) {
      if (owned.sessionId === null) dormant.set(owned.origin, (dormant.get(owned.origin) ?? 0) + 1);
    }
    for (const [name, owned] of this.#owned) {
      if (owned.sessionId !== null) continue;
      const count = dormant.get(owned.origin) ?? 0;
      if (count <= SPARE_RESERVATIONS) continue;
      dormant.set(owned.origin, count - 1);
      this.#owned.delete(name);
    }
  }
}

function tabKey(origin: string | null, key: string, toolId: string): string {
  return JSON.stringify([origin, key, toolId]);
}

/**
 * The withheld tool a call by MCP `name` means, looked for among `withheld` in
 * this order: the one `name` was given while it was listed (`given`, McpToolNames.given); one
 * whose plain name `name` is; one whose name with its tab's label `name` is
 * (`demo_echo__ab12cd34`, as a second tab's tool of that id is named). The first found wins.
 */
export function withheldNamed(
  name: string,
  withheld: readonly McpWithheldTool[],
  given?: (sessionId: string, toolId: string) => string | undefined,
): McpWithheldTool | undefined {
  const labelled = (tool: McpWithheldTool) =>
    suffixed(mcpToolName(tool.id), `__${sessionLabel(tool.sessionId)}`);
  return (
    (given ? withheld.find((tool) => given(tool.sessionId, tool.id) === name) : undefined) ??
    withheld.find((tool) => mcpToolName(tool.id) === name) ??
    withheld.find((tool) => labelled(tool) === name)
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
