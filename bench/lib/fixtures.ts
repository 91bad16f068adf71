/**
 * Deterministic inputs for the protocol benchmark: a large tool catalog and realistic JSON
 * payloads. Everything derives from a seeded generator so runs compare like for like, and the
 * text is drawn from word lists so it compresses like real data rather than like noise.
 */
import type { AvailabilityInput, BridgeTool } from '../../packages/protocol/src/index.js';

/** Small, fast, seeded PRNG (mulberry32): reproducible across runs and machines. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)] as T;
}

const CATEGORIES = [
  'billing',
  'calendar',
  'contacts',
  'documents',
  'email',
  'files',
  'forms',
  'inventory',
  'maps',
  'media',
  'navigation',
  'notes',
  'orders',
  'payments',
  'reports',
  'search',
  'settings',
  'shipping',
  'tasks',
  'users',
] as const;

export const CATEGORY_COUNT = CATEGORIES.length;

const READ_VERBS = ['Get', 'List', 'Find', 'Show', 'Count', 'Preview', 'Inspect'] as const;
const WRITE_VERBS = ['Create', 'Update', 'Rename', 'Archive', 'Move', 'Tag', 'Submit'] as const;
const NOUNS = [
  'entry',
  'record',
  'draft',
  'item',
  'attachment',
  'comment',
  'label',
  'summary',
  'version',
  'filter',
] as const;
const QUALIFIERS = [
  'in the current view',
  'for the signed-in account',
  'matching the given filter',
  'from the active workspace',
  'shown on this page',
] as const;
const KEYWORDS = [
  'export',
  'bulk',
  'recent',
  'shared',
  'favorite',
  'audit',
  'offline',
  'sync',
] as const;
const ARGUMENT_SHAPES = [
  { name: 'query', schema: { type: 'string', minLength: 1, maxLength: 200 } },
  { name: 'limit', schema: { type: 'integer', minimum: 1, maximum: 100 } },
  { name: 'includeArchived', schema: { type: 'boolean' } },
  { name: 'sortBy', schema: { type: 'string', enum: ['name', 'createdAt', 'updatedAt'] } },
  { name: 'itemId', schema: { type: 'string', pattern: '^[a-z0-9-]{8,36}$' } },
] as const;

/** Switches the bench flips to make some tools report themselves unavailable. */
export interface AvailabilityWorld {
  signedOut: boolean;
}

export function toolId(category: number, index: number): string {
  return `cat${String(category).padStart(2, '0')}.tool${String(index).padStart(5, '0')}`;
}

/**
 * One realistic tool. `index` makes the id, name and description distinct; every 30th tool has
 * an availability() check (true, unless `world.signedOut` and it is one of every 10th of those).
 */
export function makeTool(index: number, world: AvailabilityWorld, idPrefix = 'tool'): BridgeTool {
  const random = seededRandom(index * 7919 + 17);
  const category = index % CATEGORY_COUNT;
  const categoryName = CATEGORIES[category] as string;
  const isRead = random() < 0.6;
  const verb = pick(isRead ? READ_VERBS : WRITE_VERBS, random);
  const noun = pick(NOUNS, random);
  const id =
    idPrefix === 'tool'
      ? toolId(category, index)
      : `cat${String(category).padStart(2, '0')}.${idPrefix}${String(index).padStart(5, '0')}`;
  // ~100 characters: the length a short tool description usually has.
  const description = `${verb}s the ${categoryName} ${noun} ${pick(QUALIFIERS, random)}; returns its fields and the time it last changed (#${index}).`;

  const argumentCount = 2 + (index % 2);
  const properties: Record<string, unknown> = {};
  const start = index % ARGUMENT_SHAPES.length;
  for (let k = 0; k < argumentCount; k++) {
    const shape = ARGUMENT_SHAPES[(start + k) % ARGUMENT_SHAPES.length];
    if (shape) properties[shape.name] = { ...shape.schema };
  }
  const required = Object.keys(properties).slice(0, 1);

  const definition: BridgeTool['definition'] = {
    id,
    name: `${verb} ${categoryName} ${noun} ${index}`,
    description,
    category: categoryName,
    policy: isRead ? 'read' : 'write',
    argumentsSchema: { type: 'object', properties, required, additionalProperties: false },
    resultSchema: { type: 'object' },
  };
  if (index % 3 === 0) definition.keywords = [pick(KEYWORDS, random), pick(KEYWORDS, random)];
  if (index % 7 === 0 && index >= CATEGORY_COUNT) {
    // Unsorted and with a duplicate, as hand-written prerequisites often are.
    const before = index - CATEGORY_COUNT;
    definition.prerequisiteToolIds = [
      toolId(category, before),
      ` ${toolId(category, Math.floor(before / 2))}`,
      toolId(category, before),
    ];
  }

  const tool: BridgeTool = {
    definition,
    execute: (args) => ({ ok: true, echoed: args }),
  };
  if (index % 30 === 0) {
    const canGoOffline = index % 300 === 0;
    tool.availability = (): AvailabilityInput =>
      canGoOffline && world.signedOut
        ? {
            available: false,
            code: 'auth_required',
            reason: 'Sign in to use this tool.',
            requiredState: 'signed-in',
            retryable: true,
          }
        : true;
  }
  return tool;
}

export function makeCatalog(count: number, world: AvailabilityWorld): BridgeTool[] {
  const tools: BridgeTool[] = [];
  for (let index = 0; index < count; index++) tools.push(makeTool(index, world));
  return tools;
}

const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Ken', 'Margaret', 'Linus'];
const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Thompson', 'Hamilton'];
const CITIES = ['Lisbon', 'Oslo', 'Kyoto', 'Austin', 'Nairobi', 'Lyon', 'Porto', 'Tallinn'];
const STATUSES = ['open', 'pending', 'shipped', 'delivered', 'returned', 'cancelled'] as const;
const WORDS = [
  'quarterly',
  'invoice',
  'customer',
  'priority',
  'follow-up',
  'warehouse',
  'discount',
  'renewal',
  'contract',
  'delivery',
  'approved',
  'feedback',
] as const;

/** One record of the kind a tool returns in bulk: strings, numbers, a nested object, a list. */
function makeRecord(index: number, random: () => number): Record<string, unknown> {
  const first = pick(FIRST_NAMES, random);
  const last = pick(LAST_NAMES, random);
  const noteWords: string[] = [];
  const noteLength = 6 + Math.floor(random() * 10);
  for (let k = 0; k < noteLength; k++) noteWords.push(pick(WORDS, random));
  return {
    id: `ord-${String(index).padStart(8, '0')}`,
    customer: { name: `${first} ${last}`, email: `${first}.${last}${index % 97}@example.com` },
    city: pick(CITIES, random),
    status: pick(STATUSES, random),
    createdAt: new Date(Date.UTC(2024, 0, 1) + index * 61_000).toISOString(),
    total: Math.round(random() * 100_000) / 100,
    quantity: 1 + Math.floor(random() * 20),
    tags: [pick(WORDS, random), pick(WORDS, random)],
    note: noteWords.join(' '),
  };
}

/**
 * An array of records whose compact JSON is at least `targetBytes` UTF-8 bytes (records are
 * ASCII, so string length = byte count). Growth stops at the first record past the target.
 */
export function makeRecordsPayload(targetBytes: number, seed = 42): { records: unknown[] } {
  const random = seededRandom(seed);
  const records: unknown[] = [];
  // `{"records":[` + `]}` plus a comma between records.
  let size = 14;
  for (let index = 0; size < targetBytes; index++) {
    const record = makeRecord(index, random);
    size += JSON.stringify(record).length + (index > 0 ? 1 : 0);
    records.push(record);
  }
  return { records };
}

/** docs/performance.md's ~100 B input, the one the Node benches call with (the pages keep a copy). */
export const SMALL_INPUT = {
  id: 4217,
  query: 'weather in Lisbon',
  units: 'metric',
  limit: 10,
  tags: ['forecast', 'today'],
};
