/**
 * The agent view: the catalog exactly as the host reads it. It asks the session's own bridge
 * the host's two questions (`tool.query {detail: "index", limit: 1000}`, then `{detail:
 * "definitions", ids}`), so what it shows is what the host receives: ids, policies, and the
 * schemas with every `webType` expanded to plain JSON Schema. Only the grouping (this page, the
 * calendar frame, built-ins) is added, from the page's own `tools.getTools()`.
 */
import type { Session } from '../../packages/endpoint/src/index.js';
import { decodePayload } from '../../packages/protocol/src/index.js';
import { element, isRecord, pretty } from './format.js';

interface CatalogTool {
  id: string;
  name: string;
  description: string;
  category: string;
  policy: string;
  argumentsSchema?: Record<string, unknown>;
  resultSchema?: Record<string, unknown>;
  runtime?: { available: false; reason?: string };
}

export interface Catalog {
  revision?: string;
  availabilityRevision?: string;
  tools: CatalogTool[];
}

let sequence = 0;

async function ask(session: Session, payload: Record<string, unknown>): Promise<unknown> {
  const response = await session.handle({
    type: 'tool.query',
    id: `agent-view.${++sequence}`,
    payload,
  });
  if (!response) return undefined;
  return decodePayload(response.payload);
}

/** The host's two catalog questions, answered by the page. */
export async function readCatalog(session: Session): Promise<Catalog> {
  const index = await ask(session, { detail: 'index', limit: 1000 });
  if (!isRecord(index) || !Array.isArray(index.tools)) return { tools: [] };
  const rows = index.tools.filter(isRecord) as unknown as CatalogTool[];
  const definitions = await ask(session, {
    detail: 'definitions',
    ids: rows.map((row) => row.id),
    limit: 1000,
  });
  const schemas = new Map<string, Record<string, unknown>>();
  if (isRecord(definitions) && Array.isArray(definitions.tools)) {
    for (const entry of definitions.tools)
      if (isRecord(entry)) schemas.set(String(entry.id), entry);
  }
  return {
    revision: typeof index.revision === 'string' ? index.revision : undefined,
    availabilityRevision:
      typeof index.availabilityRevision === 'string' ? index.availabilityRevision : undefined,
    tools: rows.map((row) => {
      const definition = schemas.get(row.id);
      return {
        ...row,
        argumentsSchema: definition?.argumentsSchema as Record<string, unknown> | undefined,
        resultSchema: definition?.resultSchema as Record<string, unknown> | undefined,
      };
    }),
  };
}

/** A short type for a schema, for the one-line signature. */
export function typeLabel(schema: unknown, depth = 0): string {
  if (!isRecord(schema) || Object.keys(schema).length === 0) return 'any';
  const type = schema.type;
  if (type === 'string') return schema.format ? `string<${schema.format}>` : 'string';
  if (type === 'array') {
    const items = depth < 2 ? typeLabel(schema.items, depth + 1) : '…';
    return schema.uniqueItems ? `unique ${items}[]` : `${items}[]`;
  }
  if (type === 'object') {
    if (isRecord(schema.properties) && Object.keys(schema.properties).length > 0) {
      if (depth >= 1) return `{${Object.keys(schema.properties).join(', ')}}`;
      return `{${Object.entries(schema.properties)
        .map(([key, value]) => `${key}: ${typeLabel(value, depth + 1)}`)
        .join(', ')}}`;
    }
    if (isRecord(schema.additionalProperties)) {
      const key = isRecord(schema.propertyNames) ? typeLabel(schema.propertyNames, 2) : 'string';
      return `{[${key}]: ${typeLabel(schema.additionalProperties, depth + 1)}}`;
    }
    return 'object';
  }
  if (typeof type === 'string') return type;
  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) return 'one of…';
  return 'any';
}

function signature(tool: CatalogTool): string {
  const args = tool.argumentsSchema;
  const params =
    isRecord(args) && isRecord(args.properties)
      ? Object.entries(args.properties)
          .map(([key, value]) => {
            const required = Array.isArray(args.required) && args.required.includes(key);
            return `${key}${required ? '' : '?'}: ${typeLabel(value, 1)}`;
          })
          .join(', ')
      : '';
  return `(${params}) → ${typeLabel(tool.resultSchema)}`;
}

type Group = 'page' | 'frame' | 'builtin';

const GROUPS: { id: Group; title: string; note: string }[] = [
  {
    id: 'page',
    title: 'This page',
    note: 'registered by the notes app (origin A), its search form included',
  },
  {
    id: 'frame',
    title: 'Calendar frame',
    note: 'registered in the cross-origin frame (origin B), coalesced into this page',
  },
  { id: 'builtin', title: 'Built-in ui.* tools', note: 'served by the endpoint itself' },
];

export class AgentView {
  #root = document.getElementById('agent-tools') as HTMLDivElement;
  #summary = document.getElementById('agent-summary') as HTMLElement;
  #open = new Set<string>();
  #builtinsOpen = false;

  /** Opens one tool's schemas (the demo's screenshot shows one). */
  expand(id: string): void {
    this.#open.add(id);
    const card = this.#root.querySelector<HTMLDetailsElement>(`details[data-tool="${id}"]`);
    if (card) card.open = true;
  }

  /** Shows a catalog; `origins` maps a tool name to the origin that registered it. */
  render(catalog: Catalog, origins: Map<string, string>, pageOrigin: string): void {
    if (this.#root.querySelector('details')) {
      this.#open = new Set(
        [...this.#root.querySelectorAll<HTMLDetailsElement>('details[open]')].map(
          (card) => card.dataset.tool ?? '',
        ),
      );
    }
    this.#summary.textContent = `${catalog.tools.length} tools`;
    const groupOf = (tool: CatalogTool): Group => {
      if (tool.id.startsWith('ui.')) return 'builtin';
      const origin = origins.get(tool.id.split('@')[0] ?? tool.id);
      return origin && origin !== pageOrigin ? 'frame' : 'page';
    };
    const sections = GROUPS.map((group) => {
      const tools = catalog.tools.filter((tool) => groupOf(tool) === group.id);
      if (tools.length === 0) return undefined;
      const origin = group.id === 'frame' ? origins.get(tools[0]?.id.split('@')[0] ?? '') : '';
      if (group.id === 'builtin') {
        // Long signatures, the same on every page: folded until asked for.
        const fold = element(
          'details',
          'agent-group builtins',
          element(
            'summary',
            'fold-head',
            element('h3', '', `${group.title} (${tools.length})`),
            ' ',
            element('span', 'muted', group.note),
          ),
          ...tools.map((tool) => this.#card(tool)),
        );
        fold.open = this.#builtinsOpen;
        fold.addEventListener('toggle', () => {
          this.#builtinsOpen = fold.open;
        });
        return fold;
      }
      return element(
        'section',
        `agent-group group-${group.id}`,
        element(
          'h3',
          '',
          group.title,
          ...(group.id === 'frame' ? [' ', element('span', 'chip chip-b', 'B')] : []),
          ...(group.id === 'page' ? [' ', element('span', 'chip chip-a', 'A')] : []),
          ' ',
          element('span', 'muted', origin ? `${group.note}: ${origin}` : group.note),
        ),
        ...tools.map((tool) => this.#card(tool)),
      );
    });
    this.#root.replaceChildren(...sections.filter((section) => section !== undefined));
  }

  #card(tool: CatalogTool): HTMLDetailsElement {
    const card = element(
      'details',
      'agent-tool',
      element(
        'summary',
        'tool-head',
        element(
          'div',
          'agent-line',
          element('code', 'tool-id', tool.id),
          element('span', `policy policy-${tool.policy}`, tool.policy),
          element('span', 'tool-name', tool.name),
          ...(tool.runtime ? [element('span', 'policy policy-critical', 'unavailable')] : []),
        ),
        element('div', 'sig', element('code', '', signature(tool))),
        element('div', 'desc', tool.description),
      ),
      element(
        'div',
        'schemas',
        element('h4', '', 'argumentsSchema'),
        element('pre', '', pretty(tool.argumentsSchema ?? {})),
        element('h4', '', 'resultSchema'),
        element('pre', '', pretty(tool.resultSchema ?? {})),
      ),
    );
    card.dataset.tool = tool.id;
    card.open = this.#open.has(tool.id);
    return card;
  }
}
