/**
 * MCP tool names for page tools: unique across the open sessions, and stable for as long as a
 * session lives (issue 17 part 3). Two tabs may register the same tool id; both stay callable.
 *
 * 1. A name is the tool id made MCP-safe (`[A-Za-z0-9_-]{1,64}`: `demo.echo` -> `demo_echo`).
 * 2. The first session to offer a name keeps it. A later session offering the same name gets
 *    `<name>__<label>`, its label being the first 8 characters of its session id (the SESSION
 *    column of `toolwire sessions`). Should that be taken too (a page may register any id),
 *    `_2`, `_3`... follow; so they do for two ids of one tab that read alike (`a.b`, `a_b`) and
 *    for a page tool named like one of the bridge's own. Sessions are taken in the order they connected, then by id, and a
 *    session's tools by id, so one listing always names the same way.
 * 3. Once given, a name stays with its (session, tool id) until that session closes, even while
 *    the page has unregistered the tool: a name never moves to another tab, and another tab
 *    closing renames nothing. The first tab's name is free again once that tab closes: a
 *    reloaded tab (a new session) takes it back if no one else has.
 * 4. The bridge's own tools (`toolwire_pair`, `toolwire_sessions`, `toolwire_call`) are never
 *    a page tool's name: a page cannot shadow them.
 * 5. What a session keeps for unlisted tools is bounded: past 1,000 reservations beyond its
 *    listed tools, those of tools it no longer lists are dropped.
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

/** Names page tools for one bridge, remembering what it gave (requirement 3). */
export class McpToolNames {
  readonly #reserved: ReadonlySet<string>;
  /** session id -> tool id -> name. */
  readonly #given = new Map<string, Map<string, string>>();
  /** name -> the session holding it. */
  readonly #holders = new Map<string, string>();

  constructor(reserved: Iterable<string>) {
    this.#reserved = new Set(reserved);
  }

  /**
   * The names of `entries` (each open session's offered tools), given `open`, the ids of every
   * open session: the names of sessions not in it are freed first.
   */
  assign(entries: readonly McpSourceTool[], open: Iterable<string>): Map<string, McpSourceTool> {
    const live = new Set(open);
    for (const sessionId of entries.map((entry) => entry.sessionId)) live.add(sessionId);
    for (const [sessionId, names] of this.#given) {
      if (live.has(sessionId)) continue;
      for (const name of names.values()) this.#holders.delete(name);
      this.#given.delete(sessionId);
    }
    const ordered = [...entries].sort(
      (a, b) =>
        a.connectedAt - b.connectedAt ||
        compare(a.sessionId, b.sessionId) ||
        compare(a.tool.id, b.tool.id),
    );
    const named = new Map<string, McpSourceTool>();
    for (const entry of ordered) {
      let names = this.#given.get(entry.sessionId);
      if (!names) {
        names = new Map();
        this.#given.set(entry.sessionId, names);
      }
      let name = names.get(entry.tool.id);
      if (name === undefined || named.has(name)) {
        name = this.#pick(entry);
        names.set(entry.tool.id, name);
        this.#holders.set(name, entry.sessionId);
      }
      named.set(name, entry);
    }
    this.#trim(entries);
    return new Map([...named].sort(([a], [b]) => compare(a, b)));
  }

  /** The name `toolId` of `sessionId` was given while listed, while it is kept (requirement 3). */
  given(sessionId: string, toolId: string): string | undefined {
    return this.#given.get(sessionId)?.get(toolId);
  }

  /** A name no one holds for `entry` (requirement 2). */
  #pick(entry: McpSourceTool): string {
    const free = (name: string) => !this.#holders.has(name) && !this.#reserved.has(name);
    const plain = mcpToolName(entry.tool.id);
    if (free(plain)) return plain;
    // Another tab's: this tab's label. The bridge's own, or two ids of this tab alike: a number.
    const holder = this.#holders.get(plain);
    const base =
      holder !== undefined && holder !== entry.sessionId
        ? suffixed(plain, `__${sessionLabel(entry.sessionId)}`)
        : plain;
    if (free(base)) return base;
    for (let n = 2; ; n++) {
      const numbered = suffixed(base, `_${n}`);
      if (free(numbered)) return numbered;
    }
  }

  /** Requirement 5: drops the reservations of unlisted tools of a session that hoards them. */
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
        this.#holders.delete(name);
      }
    }
  }
}

/**
 * The withheld tool a call by MCP `name` means (requirement 6), looked for among `withheld` in
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
