/**
 * `pnpm bench:lowering`: @toolwire/lowering against plain JSON and against its peer (issue 3,
 * docs/performance.md "Data" rows).
 *
 * - A 1 MiB JSON-native tree: lower + lift against JSON.stringify + JSON.parse (target <= 2x),
 *   with `{}` and with a schema that describes every field.
 * - A Map of 100,000 entries through JSON text, against the hand-written
 *   `JSON.stringify([...map])` + `new Map(JSON.parse(s))` (target <= 1.5x); string keys take
 *   the object form (LOWERING.md [M1]), whose hand-written twin goes through
 *   `Object.fromEntries` / `Object.entries`, and is shown against both.
 * - A 16 MiB Uint8Array through JSON text, against JSON carrying Node's own base64 (target
 *   <= 1.2x); and without the JSON text, against Node's base64 encode + decode alone.
 * - The same values through `@ungap/structured-clone/json` (stringify + parse), the peer.
 *
 * Every case is timed interleaved with its baseline in this process, and the answers are
 * checked outside the timed region. Ratios are reported, never asserted.
 */
import os from 'node:os';
import { parse as ungapParse, stringify as ungapStringify } from '@ungap/structured-clone/json';
import { type JsonSchema, lift, lower } from '../packages/lowering/src/index.js';
import { seededRandom } from './lib/fixtures.js';
import {
  type Budget,
  type Case,
  DEFAULT_BUDGET,
  expect,
  formatBytes,
  formatMs,
  formatRatio,
  measureInterleaved,
  renderTable,
} from './lib/harness.js';
import { record } from './lib/summary.js';

const MIB = 1024 * 1024;
const WORDS = [
  'alpha',
  'bravo',
  'delta',
  'harbor',
  'lantern',
  'meadow',
  'orbit',
  'quartz',
  'river',
  'summit',
  'tundra',
  'violet',
];

interface Customer {
  id: number;
  name: string;
  email: string;
  score: number;
  active: boolean;
  tags: string[];
  address: { street: string; city: string; zip: string };
  orders: { at: string; amount: number; note: string | null }[];
}

/** Tool-output-shaped records until the JSON text reaches `bytes`. */
function makeTree(bytes: number): { customers: Customer[] } {
  const random = seededRandom(3);
  const word = () => WORDS[Math.floor(random() * WORDS.length)] as string;
  const customers: Customer[] = [];
  let size = 0;
  for (let id = 0; size < bytes; id++) {
    const customer: Customer = {
      id,
      name: `${word()} ${word()}`,
      email: `${word()}.${id}@example.com`,
      score: Math.round(random() * 1e6) / 100,
      active: random() < 0.5,
      tags: Array.from({ length: Math.floor(random() * 4) }, word),
      address: {
        street: `${Math.floor(random() * 999)} ${word()} road`,
        city: word(),
        zip: String(10000 + id),
      },
      orders: Array.from({ length: Math.floor(random() * 4) }, (_, k) => ({
        at: new Date(1.7e12 + id * 1e6 + k).toISOString(),
        amount: Math.round(random() * 1e5) / 100,
        note: random() < 0.3 ? `${word()} ${word()} ${word()}` : null,
      })),
    };
    customers.push(customer);
    size += JSON.stringify(customer).length + 1;
  }
  return { customers };
}

const string = { type: 'string' } as const;
const TREE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['customers'],
  properties: {
    customers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'email', 'score', 'active', 'tags', 'address', 'orders'],
        properties: {
          id: { type: 'integer', minimum: 0 },
          name: string,
          email: string,
          score: { type: 'number' },
          active: { type: 'boolean' },
          tags: { type: 'array', items: string },
          address: {
            type: 'object',
            additionalProperties: false,
            required: ['street', 'city', 'zip'],
            properties: {
              street: string,
              city: string,
              zip: { type: 'string', pattern: '^[0-9]+$' },
            },
          },
          orders: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['at', 'amount', 'note'],
              properties: {
                at: string,
                amount: { type: 'number' },
                note: { type: ['string', 'null'] },
              },
            },
          },
        },
      },
    },
  },
};

const ANY: JsonSchema = {};
const INT_MAP: JsonSchema = {
  webType: 'Map',
  keys: { type: 'integer' },
  values: { type: 'string' },
};
const STRING_MAP: JsonSchema = {
  webType: 'Map',
  keys: { type: 'string' },
  values: { type: 'string' },
};
const BYTES: JsonSchema = { webType: 'Uint8Array' };

const tree = makeTree(MIB);
const treeText = JSON.stringify(tree);
const intMap = new Map(Array.from({ length: 100_000 }, (_, i) => [i, `value-${i}`] as const));
const stringMap = new Map(
  Array.from({ length: 100_000 }, (_, i) => [`key-${i}`, `value-${i}`] as const),
);
const bytes = new Uint8Array(16 * MIB).map((_, i) => (i * 2654435761) >>> 24);

/** A case with no per-run input; every answer goes through `check`, outside the timing. */
function once(run: () => unknown, check: (result: unknown) => void): Case<undefined, unknown> {
  return { prepare: () => undefined, run, check: (result) => check(result) };
}

// Answers are checked on every run, outside the timed region, cheaply.
const sameTree = (out: unknown) => {
  const customers = (out as typeof tree).customers;
  expect(customers.length === tree.customers.length, 'tree: wrong length');
  expect(
    JSON.stringify(customers[17]) === JSON.stringify(tree.customers[17]),
    'tree: wrong record',
  );
};
const sameMap = (source: Map<unknown, string>) => (out: unknown) => {
  const map = out as Map<unknown, string>;
  expect(map instanceof Map && map.size === source.size, 'map: wrong size');
  const [key, value] = [...source][99_999] as [unknown, string];
  expect(map.get(key) === value, 'map: wrong entry');
};
const sameBytes = (out: unknown) => {
  const view = out as Uint8Array;
  expect(view.byteLength === bytes.byteLength, 'bytes: wrong length');
  for (let i = 0; i < view.length; i += 65_521) expect(view[i] === bytes[i], 'bytes: wrong byte');
};

const nodeBase64 = (view: Uint8Array) =>
  Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('base64');
const nodeBytes = (text: string) => {
  const buffer = Buffer.from(text, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
};

interface Row {
  workload: string;
  baselineName: string;
  baseline: Case<undefined, unknown>;
  ours: Case<undefined, unknown>;
  /** The peer on the same work, or undefined where it does not apply. */
  ungap?: Case<undefined, unknown>;
  target?: number;
  budget?: Budget;
  /** For the summary of `pnpm bench`: what the row measures and its baseline, in short. */
  headline?: { what: string; baseline: string };
}

const ROWS: Row[] = [
  {
    workload: `1 MiB JSON tree (${formatBytes(treeText.length)}), schema {}`,
    baselineName: 'JSON.parse(JSON.stringify(v))',
    baseline: once(() => JSON.parse(JSON.stringify(tree)), sameTree),
    ours: once(async () => lift(await lower(tree, ANY), ANY), sameTree),
    ungap: once(() => ungapParse(ungapStringify(tree)), sameTree),
    target: 2,
    headline: { what: 'lower + lift, 1 MiB JSON tree, schema {}', baseline: 'JSON round trip' },
  },
  {
    workload: '1 MiB JSON tree, full schema',
    baselineName: 'JSON.parse(JSON.stringify(v))',
    baseline: once(() => JSON.parse(JSON.stringify(tree)), sameTree),
    ours: once(async () => lift(await lower(tree, TREE_SCHEMA), TREE_SCHEMA), sameTree),
    target: 2,
    headline: {
      what: 'lower + lift, 1 MiB JSON tree, full schema',
      baseline: 'JSON round trip',
    },
  },
  {
    workload: '1 MiB JSON tree, {} + JSON text both ways',
    baselineName: 'JSON.parse(JSON.stringify(v))',
    baseline: once(() => JSON.parse(JSON.stringify(tree)), sameTree),
    ours: once(async () => lift(JSON.parse(JSON.stringify(await lower(tree))), ANY), sameTree),
  },
  {
    workload: 'Map, 100,000 integer keys (pairs form)',
    baselineName: 'new Map(JSON.parse(JSON.stringify([...m])))',
    baseline: once(() => new Map(JSON.parse(JSON.stringify([...intMap]))), sameMap(intMap)),
    ours: once(
      async () => lift(JSON.parse(JSON.stringify(await lower(intMap, INT_MAP))), INT_MAP),
      sameMap(intMap),
    ),
    ungap: once(() => ungapParse(ungapStringify(intMap)), sameMap(intMap)),
    target: 1.5,
    headline: {
      what: 'lower + lift + JSON text, Map of 100,000 integer keys',
      baseline: 'hand-written JSON of [...map]',
    },
  },
  {
    // String keys give the object form, so the hand-written equivalent goes through an object.
    workload: 'Map, 100,000 string keys (object form)',
    baselineName: 'new Map(Object.entries(JSON.parse(JSON.stringify(Object.fromEntries(m)))))',
    baseline: once(
      () => new Map(Object.entries(JSON.parse(JSON.stringify(Object.fromEntries(stringMap))))),
      sameMap(stringMap),
    ),
    ours: once(
      async () => lift(JSON.parse(JSON.stringify(await lower(stringMap, STRING_MAP))), STRING_MAP),
      sameMap(stringMap),
    ),
    ungap: once(() => ungapParse(ungapStringify(stringMap)), sameMap(stringMap)),
    target: 1.5,
    headline: {
      what: 'lower + lift + JSON text, Map of 100,000 string keys',
      baseline: 'hand-written JSON of Object.fromEntries(map)',
    },
  },
  {
    // What the object form costs over pairs: V8 builds and lists a 100,000-key object slowly.
    workload: 'Map, 100,000 string keys (object form)',
    baselineName: 'new Map(JSON.parse(JSON.stringify([...m])))',
    baseline: once(() => new Map(JSON.parse(JSON.stringify([...stringMap]))), sameMap(stringMap)),
    ours: once(
      async () => lift(JSON.parse(JSON.stringify(await lower(stringMap, STRING_MAP))), STRING_MAP),
      sameMap(stringMap),
    ),
  },
  {
    workload: '16 MiB Uint8Array through JSON text',
    baselineName: 'JSON carrying Node base64',
    baseline: once(() => nodeBytes(JSON.parse(JSON.stringify(nodeBase64(bytes)))), sameBytes),
    ours: once(
      async () => lift(JSON.parse(JSON.stringify(await lower(bytes, BYTES))), BYTES),
      sameBytes,
    ),
    ungap: once(() => ungapParse(ungapStringify(bytes)), sameBytes),
    target: 1.2,
    headline: {
      what: 'lower + lift + JSON text, 16 MiB Uint8Array',
      baseline: 'JSON carrying Node base64',
    },
    budget: { ...DEFAULT_BUDGET, minRuns: 3, minTimeMs: 300, maxTimeMs: 60_000 },
  },
  {
    workload: '16 MiB Uint8Array, no JSON text',
    baselineName: 'Node base64 encode + decode',
    baseline: once(() => nodeBytes(nodeBase64(bytes)), sameBytes),
    ours: once(async () => lift(await lower(bytes, BYTES), BYTES), sameBytes),
  },
];

async function main(): Promise<void> {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  process.stdout.write(
    `@toolwire/lowering benchmark: Node ${process.version}, ${os.cpus().length} cores (${cpu})\n` +
      'Medians of interleaved runs in this process; ratio = ours / baseline (lower is better).\n\n',
  );
  const rows: string[][] = [];
  let missed = 0;
  for (const row of ROWS) {
    const cases = row.ungap ? [row.baseline, row.ours, row.ungap] : [row.baseline, row.ours];
    const timings = await measureInterleaved(cases, row.budget ?? DEFAULT_BUDGET);
    const [base, ours, ungap] = timings as [
      (typeof timings)[0],
      (typeof timings)[0],
      (typeof timings)[0] | undefined,
    ];
    const ratio = ours.medianMs / base.medianMs;
    const verdict =
      row.target === undefined
        ? '-'
        : ratio <= row.target
          ? `<= ${row.target}x ok`
          : `<= ${row.target}x MISSED`;
    if (row.target !== undefined && ratio > row.target) missed++;
    if (row.headline) {
      record({
        bench: 'lowering',
        what: row.headline.what,
        figure: { value: ours.medianMs, unit: 'ms' },
        baseline: { name: row.headline.baseline, value: base.medianMs, unit: 'ms' },
        ...(row.target === undefined
          ? {}
          : { target: { op: '<=', value: row.target, of: 'ratio' } }),
      });
    }
    rows.push([
      row.workload,
      row.baselineName,
      formatMs(base.medianMs),
      formatMs(ours.medianMs),
      formatRatio(ratio),
      verdict,
      ungap ? formatRatio(ungap.medianMs / base.medianMs) : '-',
      String(ours.runs),
    ]);
  }
  process.stdout.write(
    `${renderTable(['workload', 'baseline', 'baseline ms', 'ours ms', 'ratio', 'target', 'ungap ratio', 'runs'], rows)}\n`,
  );
  process.stdout.write(
    missed === 0 ? '\nEvery target met.\n' : `\n${missed} target(s) missed on this run.\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
