/**
 * `pnpm bench:protocol`: the catalog and codec costs of @toolwire/protocol (issue 2).
 *
 * - 10,000 tools: full listing, index listing, the conditional unchanged query, one
 *   registration then a query, and the first (cold) build.
 * - The `$ansightEncoding` codec on 1 MiB and 16 MiB of JSON, against raw fflate on the same bytes.
 *
 * Every catalog measurement includes `serializeMessage`, since the text frame is what goes on
 * the socket. Answers are checked outside the timed region; a wrong answer exits non-zero
 * instead of printing a time for it. Times are never asserted: targets are only reported.
 */
import os from 'node:os';
import { gunzipSync, gzipSync } from 'fflate';
import { createAjvProvider } from '../packages/protocol/src/ajv.js';
import type {
  CatalogListingPayload,
  CatalogPayload,
  EncodedPayload,
  QueryPayload,
  ResponseEnvelope,
  ToolBridge,
} from '../packages/protocol/src/index.js';
import {
  CATALOG_SCHEMA,
  createToolBridge,
  decodePayload,
  encodePayload,
  isEncodedPayloadWrapper,
  isPlainObject,
  TOOL_CAPABILITY,
} from '../packages/protocol/src/index.js';
import type { AvailabilityWorld } from './lib/fixtures.js';
import { CATEGORY_COUNT, makeCatalog, makeRecordsPayload, makeTool } from './lib/fixtures.js';
import type { Timing } from './lib/harness.js';
import {
  BenchFailure,
  expect,
  formatBytes,
  formatMs,
  formatPercent,
  formatRatio,
  measure,
  measureInterleaved,
  renderTable,
  timeSingle,
} from './lib/harness.js';
import { printTotal, runBench } from './lib/run.js';
import { record } from './lib/summary.js';

const TOOL_COUNT = 10_000;
/** docs/wire.md clamps `limit` to 1..1000, default 1000: a listing never carries more than this. */
const LISTING_LIMIT = 1000;
const UNCHANGED_TARGET = 0.01;
const MIB = 1024 * 1024;

type Row = [
  measurement: string,
  runs: string,
  medianMs: string,
  baseline: string,
  baselineMs: string,
  ratio: string,
  notes: string,
];
const rows: Row[] = [];

function addRow(
  measurement: string,
  timing: Timing,
  baseline?: { name: string; timing: Timing; as: 'percent' | 'ratio' },
  notes = '',
): void {
  const ratio = baseline ? timing.medianMs / baseline.timing.medianMs : undefined;
  rows.push([
    measurement,
    String(timing.runs),
    formatMs(timing.medianMs),
    baseline?.name ?? '-',
    baseline ? formatMs(baseline.timing.medianMs) : '-',
    ratio === undefined
      ? '-'
      : baseline?.as === 'percent'
        ? formatPercent(ratio)
        : formatRatio(ratio),
    notes,
  ]);
}

// ---- catalog -----------------------------------------------------------------------------

let requestSequence = 0;

/** A tool.query text frame as the host sends it, with a fresh id (ids are unique per connection). */
function queryFrame(payload: QueryPayload): string {
  requestSequence++;
  return JSON.stringify({
    type: 'tool.query',
    id: `bench.query.${requestSequence}`,
    sessionId: 'bench-session',
    sentAt: new Date().toISOString(),
    capability: TOOL_CAPABILITY,
    payload,
  });
}

interface Answer {
  /** The frame parsed, only when a check reads it: not part of the timed unit. */
  readonly envelope: ResponseEnvelope | undefined;
  frame: string;
}

/** The timed unit: handle a request frame and produce the response frame for the socket. */
async function answer(bridge: ToolBridge, frame: string): Promise<Answer> {
  const response = await bridge.handle(frame);
  return {
    get envelope() {
      return response?.envelope;
    },
    frame: response?.frame ?? '',
  };
}

/** The decoded catalog payload of an answer, after checking it is a catalog at all. */
function catalogOf(result: Answer, thorough: boolean): CatalogPayload {
  const { envelope, frame } = result;
  expect(envelope, 'the bridge passed a tool.query through instead of answering it');
  if (envelope.type !== 'tool.catalog') {
    throw new BenchFailure(`expected tool.catalog, got ${envelope.type}: ${frame.slice(0, 300)}`);
  }
  if (thorough) {
    // The frame must carry the same payload as the envelope (read from it, apart).
    const parsed: unknown = JSON.parse(frame);
    expect(isPlainObject(parsed), 'the response frame is not a JSON object');
    expect(
      JSON.stringify(parsed.payload) === JSON.stringify(envelope.payload),
      'the response frame carries a different payload than its envelope',
    );
  }
  return decodePayload(envelope.payload) as CatalogPayload;
}

function checkListing(
  payload: CatalogPayload,
  expected: { detail: 'index' | 'full'; total: number },
): CatalogListingPayload {
  expect(!('unchanged' in payload), `expected a listing, got ${JSON.stringify(payload)}`);
  const listing = payload as CatalogListingPayload;
  expect(listing.schema === CATALOG_SCHEMA, `listing schema is ${listing.schema}`);
  expect(listing.revision.startsWith('sha256:'), `listing revision is ${listing.revision}`);
  expect(
    typeof listing.availabilityRevision === 'string' &&
      listing.availabilityRevision.startsWith('sha256:'),
    'listing has no availabilityRevision',
  );
  expect(
    listing.totalCount === expected.total,
    `totalCount ${listing.totalCount}, expected ${expected.total}`,
  );
  const count = Math.min(LISTING_LIMIT, expected.total);
  expect(
    listing.count === count && listing.tools.length === count,
    `count ${listing.count} with ${listing.tools.length} tools, expected ${count}`,
  );
  const categories = Object.values(listing.categories ?? {});
  expect(
    categories.length === CATEGORY_COUNT &&
      categories.reduce((sum, n) => sum + n, 0) === expected.total,
    `categories ${JSON.stringify(listing.categories)} do not count ${expected.total} tools`,
  );
  const first = listing.tools[0] as Record<string, unknown> | undefined;
  expect(typeof first?.definitionRevision === 'string', 'listed tools carry no definitionRevision');
  if (expected.detail === 'index') {
    expect(listing.detail === 'index', `index listing has detail ${listing.detail}`);
    expect(
      listing.tools.every((tool) => !('argumentsSchema' in tool)),
      'an index listing carries schemas',
    );
  } else {
    expect(listing.detail === undefined, `full listing has detail ${listing.detail}`);
    expect(
      listing.tools.every((tool) => 'argumentsSchema' in tool && 'resultSchema' in tool),
      'a full listing lacks schemas',
    );
  }
  return listing;
}

/** docs/wire.md answer 1: the payload is exactly `{schema, revision, unchanged: true}`, unwrapped. */
function checkUnchanged(result: Answer, revision: string): void {
  const { envelope, frame } = result;
  expect(envelope?.type === 'tool.catalog', `unchanged query answered ${frame.slice(0, 300)}`);
  const payload: unknown = envelope.payload;
  if (isEncodedPayloadWrapper(payload) || (isPlainObject(payload) && 'tools' in payload)) {
    const listing = decodePayload(payload) as { count?: unknown };
    throw new BenchFailure(
      `the conditional query with current revisions returned a listing of ${String(listing.count)} tools instead of {schema, revision, unchanged: true}`,
    );
  }
  expect(isPlainObject(payload), `unchanged payload is not an object: ${frame.slice(0, 300)}`);
  const keys = Object.keys(payload);
  expect(
    keys.length === 3 &&
      payload.schema === CATALOG_SCHEMA &&
      payload.revision === revision &&
      payload.unchanged === true,
    `the conditional query did not answer exactly {schema, revision, unchanged: true}: ${JSON.stringify(payload).slice(0, 300)}`,
  );
  const parsed: unknown = JSON.parse(frame);
  expect(
    isPlainObject(parsed) && JSON.stringify(parsed.payload) === JSON.stringify(payload),
    'the unchanged response frame does not carry the 3-key payload',
  );
}

function frameNote(result: Answer): string {
  const envelope = result.envelope;
  const payload: unknown = envelope?.payload;
  const frameBytes = Buffer.byteLength(result.frame);
  if (isEncodedPayloadWrapper(payload)) {
    const original = (payload as { originalByteCount?: unknown }).originalByteCount;
    return `frame ${formatBytes(frameBytes)} (payload ${formatBytes(Number(original))} gzip-wrapped)`;
  }
  return `frame ${formatBytes(frameBytes)}`;
}

async function benchCatalog(): Promise<void> {
  const world: AvailabilityWorld = { signedOut: false };
  const tools = makeCatalog(TOOL_COUNT, world);
  const toolErrors: Error[] = [];
  const bridge = createToolBridge({
    validator: createAjvProvider(),
    tools: () => tools,
    guard: 'full-access',
    onToolError: (error) => toolErrors.push(error),
  });
  const withAvailability = tools.filter((tool) => tool.availability).length;

  // Cold: the very first request builds the catalog, hashing all 10,000 definitions, with a
  // cold JIT. It can only happen once per process.
  let coldListing: CatalogListingPayload | undefined;
  const cold = await timeSingle(
    () => answer(bridge, queryFrame({ detail: 'index' })),
    (result) => {
      coldListing = checkListing(catalogOf(result, true), { detail: 'index', total: TOOL_COUNT });
    },
  );
  expect(coldListing, 'the cold query produced no listing');
  expect(toolErrors.length === 0, `tools rejected: ${toolErrors.map((e) => e.message).join('; ')}`);

  let fullNote = '';
  const full = await measure({
    prepare: () => queryFrame({}),
    run: (frame) => answer(bridge, frame),
    check: (result, iteration) => {
      const catalog = catalogOf(result, iteration === 0);
      if (iteration === 0) {
        checkListing(catalog, { detail: 'full', total: TOOL_COUNT });
        fullNote = `${LISTING_LIMIT} of ${TOOL_COUNT} tools (docs/wire.md limit), ${frameNote(result)}`;
      }
    },
  });
  addRow('full listing (no detail)', full, undefined, fullNote);

  let indexNote = '';
  let indexListing: CatalogListingPayload | undefined;
  const index = await measure({
    prepare: () => queryFrame({ detail: 'index' }),
    run: (frame) => answer(bridge, frame),
    check: (result, iteration) => {
      const catalog = catalogOf(result, iteration === 0);
      if (iteration === 0) {
        indexListing = checkListing(catalog, { detail: 'index', total: TOOL_COUNT });
        indexNote = frameNote(result);
      }
    },
  });
  expect(indexListing, 'the index query produced no listing');
  addRow('index listing', index, { name: 'full listing', timing: full, as: 'percent' }, indexNote);

  // The host's poll: both revisions from its last answer.
  const { revision, availabilityRevision } = indexListing;
  expect(
    revision === coldListing.revision && availabilityRevision === coldListing.availabilityRevision,
    'revisions changed between two queries of an unchanged catalog',
  );
  let unchangedNote = '';
  const unchanged = await measure({
    prepare: () =>
      queryFrame({
        detail: 'index',
        ifRevision: revision,
        ifAvailabilityRevision: availabilityRevision,
      }),
    run: (frame) => answer(bridge, frame),
    check: (result, iteration) => {
      checkUnchanged(result, revision);
      if (iteration === 0) unchangedNote = frameNote(result);
    },
  });
  const unchangedShare = unchanged.medianMs / full.medianMs;
  addRow(
    'conditional query, unchanged',
    unchanged,
    { name: 'full listing', timing: full, as: 'percent' },
    `target < 1%: ${unchangedShare < UNCHANGED_TARGET ? 'met' : 'MISSED'}; ${unchangedNote}; ${withAvailability} availability() calls`,
  );
  record({
    bench: 'protocol',
    what: `unchanged conditional catalog query, ${TOOL_COUNT.toLocaleString('en-US')} tools`,
    figure: { value: unchanged.medianMs, unit: 'ms' },
    baseline: { name: 'full listing', value: full.medianMs, unit: 'ms' },
    ratioAs: 'percent',
    target: { op: '<', value: UNCHANGED_TARGET, of: 'ratio' },
  });

  // Same poll while some tools are unavailable: the availability revision must come from the
  // cache keyed by the unavailable set, not be re-hashed per query.
  world.signedOut = true;
  const signedOut = checkListing(
    catalogOf(await answer(bridge, queryFrame({ detail: 'index' })), true),
    { detail: 'index', total: TOOL_COUNT },
  );
  expect(
    signedOut.revision === revision && signedOut.availabilityRevision !== availabilityRevision,
    'signing out changed the catalog revision, or did not change the availability revision',
  );
  const offlineCount = tools.filter((tool) => (tool.availability?.() ?? true) !== true).length;
  const unchangedOffline = await measure({
    prepare: () =>
      queryFrame({
        detail: 'index',
        ifRevision: revision,
        ifAvailabilityRevision: signedOut.availabilityRevision,
      }),
    run: (frame) => answer(bridge, frame),
    check: (result) => checkUnchanged(result, revision),
  });
  world.signedOut = false;
  addRow(`conditional query, unchanged, ${offlineCount} tools unavailable`, unchangedOffline, {
    name: 'full listing',
    timing: full,
    as: 'percent',
  });

  // One registration then a query: the host's next poll after a page registers a tool.
  let registered = 0;
  let lastRevision = revision;
  const registration = await measure({
    prepare: () => makeTool(TOOL_COUNT + registered, world),
    run: async (tool) => {
      tools.push(tool);
      bridge.invalidate();
      return answer(bridge, queryFrame({ detail: 'index' }));
    },
    check: (result) => {
      registered++;
      const listing = checkListing(catalogOf(result, false), {
        detail: 'index',
        total: TOOL_COUNT + registered,
      });
      expect(listing.revision !== lastRevision, 'a registration did not change the revision');
      lastRevision = listing.revision;
    },
  });
  expect(toolErrors.length === 0, `tools rejected: ${toolErrors.map((e) => e.message).join('; ')}`);
  addRow(
    'register 1 tool + invalidate + index query',
    registration,
    { name: 'index listing', timing: index, as: 'ratio' },
    `${registered} tools added over the run`,
  );

  addRow(
    'first query ever (cold build + index listing)',
    cold,
    { name: 'index listing', timing: index, as: 'ratio' },
    `once per process; cold JIT, ${TOOL_COUNT} definitions hashed`,
  );

  // The same build with a warm JIT: a fresh bridge has an empty revision cache.
  const snapshot = tools.slice(0, TOOL_COUNT);
  const fresh = await measure({
    prepare: () => ({
      bridge: createToolBridge({
        validator: createAjvProvider(),
        tools: () => snapshot,
        guard: 'full-access',
        onToolError: (error) => toolErrors.push(error),
      }),
      frame: queryFrame({ detail: 'index' }),
    }),
    run: (input) => answer(input.bridge, input.frame),
    check: (result) => {
      const listing = checkListing(catalogOf(result, false), {
        detail: 'index',
        total: TOOL_COUNT,
      });
      expect(listing.revision === revision, 'a fresh bridge computed a different revision');
    },
  });
  addRow(
    'fresh bridge first query (warm JIT)',
    fresh,
    { name: 'index listing', timing: index, as: 'ratio' },
    `${TOOL_COUNT} definitions hashed`,
  );
}

// ---- codec -------------------------------------------------------------------------------

const utf8 = new TextEncoder();

async function benchCodec(targetBytes: number): Promise<void> {
  const label = formatBytes(targetBytes);
  const payload = makeRecordsPayload(targetBytes);
  const recordCount = payload.records.length;
  const json = JSON.stringify(payload);
  // The baseline's input, made once: raw fflate is handed the exact bytes encodePayload gzips.
  const bytes = utf8.encode(json);

  let encoded: EncodedPayload | undefined;
  const [ours, gzip, gzipEndToEnd] = await measureInterleaved([
    {
      prepare: () => undefined,
      run: () => encodePayload(payload),
      check: (result: EncodedPayload) => {
        expect(result.encoded, `encodePayload did not wrap ${label} of JSON`);
        expect(
          result.originalByteCount === bytes.byteLength,
          `originalByteCount ${result.originalByteCount}, expected ${bytes.byteLength}`,
        );
        encoded = result;
      },
    },
    {
      prepare: () => undefined,
      run: () => gzipSync(bytes, { level: 1 }),
    },
    {
      // What encodePayload does, written out by hand with Node's native base64.
      prepare: () => undefined,
      run: () =>
        Buffer.from(gzipSync(utf8.encode(JSON.stringify(payload)), { level: 1 })).toString(
          'base64',
        ),
    },
  ]);
  expect(encoded, 'encodePayload never ran');
  const wrapper = encoded.payload as { data: string };
  const compressed = new Uint8Array(Buffer.from(wrapper.data, 'base64'));
  expect(
    compressed.byteLength === encoded.compressedByteCount,
    'the wrapper data does not decode to compressedByteCount bytes',
  );
  const compressionNote = `${recordCount} records; ${formatBytes(bytes.byteLength)} -> gzip ${formatBytes(compressed.byteLength)} (${(bytes.byteLength / compressed.byteLength).toFixed(1)}:1), frame payload ${formatBytes(encoded.json.length)}`;

  let firstDecode = true;
  const [oursDecode, gunzip, gunzipEndToEnd] = await measureInterleaved([
    {
      prepare: () => undefined,
      run: () => decodePayload(encoded?.payload),
      check: (result: unknown) => {
        if (firstDecode) {
          firstDecode = false;
          expect(JSON.stringify(result) === json, `decodePayload(${label}) did not round-trip`);
        }
        const records = (result as { records?: unknown[] } | null)?.records;
        expect(records?.length === recordCount, `decodePayload(${label}) lost records`);
      },
    },
    {
      prepare: () => undefined,
      run: () => gunzipSync(compressed),
      check: (result: Uint8Array) =>
        expect(result.byteLength === bytes.byteLength, 'gunzipSync produced the wrong size'),
    },
    {
      prepare: () => undefined,
      run: () =>
        JSON.parse(new TextDecoder().decode(gunzipSync(Buffer.from(wrapper.data, 'base64')))),
    },
  ]);

  addRow(
    `encodePayload ${label}`,
    ours,
    { name: 'fflate gzipSync L1 (bytes ready)', timing: gzip, as: 'ratio' },
    compressionNote,
  );
  addRow(`encodePayload ${label}`, ours, {
    name: 'stringify+utf8+gzip L1+base64',
    timing: gzipEndToEnd,
    as: 'ratio',
  });
  addRow(`decodePayload ${label}`, oursDecode, {
    name: 'fflate gunzipSync',
    timing: gunzip,
    as: 'ratio',
  });
  addRow(`decodePayload ${label}`, oursDecode, {
    name: 'base64+gunzip+utf8+JSON.parse',
    timing: gunzipEndToEnd,
    as: 'ratio',
  });
}

// ---- main --------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = performance.now();
  const cpus = os.cpus();
  console.log('# @toolwire/protocol benchmark');
  console.log('');
  console.log(`- node ${process.version} (${process.platform}/${process.arch})`);
  console.log(`- cpus: ${cpus.length} x ${cpus[0]?.model.trim() ?? 'unknown'}`);
  console.log(`- date: ${new Date().toISOString()}`);
  console.log(
    '- median of N runs after warm-up; each row runs >= 0.5 s where its budget allows; ratios are ours / baseline, measured in this run',
  );
  console.log('');

  await benchCatalog();
  await benchCodec(MIB);
  await benchCodec(16 * MIB);

  console.log(
    renderTable(
      ['measurement', 'runs', 'median ms', 'baseline', 'baseline ms', 'ours/baseline', 'notes'],
      rows,
    ),
  );
  printTotal(started);
}

runBench(main);
