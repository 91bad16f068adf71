/**
 * `pnpm bench:validators` (issue 16, item 2): the two schema engines the polyfill ships, ajv
 * (compiles each schema to code with `new Function`) and @cfworker/json-schema (interprets it),
 * per call and per byte.
 *
 * - Per call: one `check(input)` on a warm validator (the schema compiled once, as a registered
 *   tool's is), a small object schema, for a 100 B input and a 10 KiB input (a list of 93 small
 *   records). Timed in Node 20 (V8, the engine Chromium runs; no DOM is involved in a check),
 *   three interleaved rounds, median of each round's batches; reported as a range.
 * - Per byte: what a page fetches the first time it needs the engine, the chunk and every shared
 *   chunk it imports, each gzipped -9 as built (scripts/size.ts `pageClosure`); needs
 *   `pnpm --filter @toolwire/polyfill build` first.
 * - First check: a schema's compile plus one check of the 10 KiB input, what a tool's first call
 *   pays (median of 30 fresh schemas).
 */
import { performance } from 'node:perf_hooks';
import { createValidator as createAjv } from '../packages/polyfill/src/validation/ajv.js';
import { createValidator as createCfworker } from '../packages/polyfill/src/validation/cfworker.js';
import type { Check, SchemaValidator } from '../packages/polyfill/src/validation/types.js';
import { chunkClosureBytes, POLYFILL_DIST } from '../scripts/size.js';
import { BenchFailure } from './lib/harness.js';
import { printTotal, runBench } from './lib/run.js';
import { quantile } from './lib/stats.js';
import { record } from './lib/summary.js';

const small = {
  type: 'object',
  properties: {
    query: { type: 'string', maxLength: 200 },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['query'],
} as const;
const listSchema = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          name: { type: 'string' },
          price: { type: 'number', minimum: 0 },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['id', 'name'],
      },
    },
  },
  required: ['items'],
} as const;
const input100 = {
  query: 'red trail running shoes, size forty-two, waterproof',
  limit: 20,
  tags: ['sport', 'sale'],
};
const input10k = {
  items: Array.from({ length: 93 }, (_, i) => ({
    id: i,
    name: `product number ${i} with a longer name`,
    price: i * 1.25,
    tags: ['tag-one', 'tag-two', 'tag-three'],
  })),
};

/** Median µs per check over batches sized to about 5 ms each. */
function timeCheck(check: Check, input: unknown, batches = 40): number {
  if (check(input) !== null) throw new BenchFailure('the bench input does not validate');
  let n = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) check(input);
    if (performance.now() - t0 > 5) break;
    n *= 2;
  }
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) check(input);
    samples.push(((performance.now() - t0) * 1000) / n);
  }
  return quantile(samples, 0.5);
}

/** µs for a fresh engine's first check of a schema: compile + one check. */
function timeFirst(engine: SchemaValidator): number {
  const samples: number[] = [];
  for (let k = 0; k < 30; k++) {
    const schema = { ...listSchema, $comment: `fresh ${Math.random()}` };
    const t0 = performance.now();
    engine.compile(schema, 'structured')(input10k);
    samples.push((performance.now() - t0) * 1000);
  }
  return quantile(samples, 0.5);
}

const range = (values: number[], digits = 2) =>
  `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;

async function main(): Promise<void> {
  const started = performance.now();
  const engines = { ajv: await createAjv(), cfworker: await createCfworker() };
  const bytes100 = JSON.stringify(input100).length;
  const bytes10k = JSON.stringify(input10k).length;
  type Figure = 'small' | 'large' | 'first';
  const empty = (): Record<Figure, number[]> => ({ small: [], large: [], first: [] });
  const results = { ajv: empty(), cfworker: empty() };
  const push = (engine: 'ajv' | 'cfworker', what: Figure, value: number) => {
    results[engine][what].push(value);
  };
  for (let round = 0; round < 3; round++) {
    for (const name of ['ajv', 'cfworker'] as const) {
      const engine = engines[name];
      push(name, 'small', timeCheck(engine.compile(small, 'structured'), input100));
      push(name, 'large', timeCheck(engine.compile(listSchema, 'structured'), input10k));
      push(name, 'first', timeFirst(engine));
    }
  }
  const sizes = {
    ajv: await chunkClosureBytes(POLYFILL_DIST, 'polyfill-validator-ajv.js'),
    cfworker: await chunkClosureBytes(POLYFILL_DIST, 'polyfill-validator-cfworker.js'),
  };
  console.log(
    '# schema engines: ajv against @cfworker/json-schema (Node, warm, 3 interleaved rounds)',
  );
  console.log('');
  console.log(
    `| engine | check, ${bytes100} B input, us | check, ${bytes10k} B input, us | first check (compile), ${bytes10k} B, us | chunks fetched, gzip -9 B |`,
  );
  console.log('|---|---:|---:|---:|---:|');
  for (const name of ['ajv', 'cfworker'] as const) {
    const r = results[name];
    console.log(
      `| ${name} | ${range(r.small)} | ${range(r.large)} | ${range(r.first, 0)} | ${sizes[name].gzipBytes.toLocaleString('en-US')} (${sizes[name].files.length} files) |`,
    );
  }
  const ratio = (what: Figure) =>
    results.cfworker[what].map((v, i) => v / (results.ajv[what][i] as number));
  console.log('');
  console.log(
    `cfworker / ajv per check: 100 B ${range(ratio('small'))}x, 10 KiB ${range(ratio('large'))}x; first check ${range(ratio('first'))}x`,
  );
  console.log(
    `cfworker / ajv per byte: ${(sizes.cfworker.gzipBytes / sizes.ajv.gzipBytes).toFixed(2)}x`,
  );
  const median = (values: number[]) => quantile(values, 0.5);
  for (const [what, label] of [
    ['small', `check, ${bytes100} B input`],
    ['large', `check, ${bytes10k} B input`],
  ] as const) {
    record({
      bench: 'validators',
      what: `cfworker ${label}, warm`,
      figure: { value: median(results.cfworker[what]), unit: 'us' },
      baseline: { name: 'ajv', value: median(results.ajv[what]), unit: 'us' },
    });
  }
  record({
    bench: 'validators',
    what: 'cfworker chunks fetched (gzip -9)',
    figure: { value: sizes.cfworker.gzipBytes, unit: 'B' },
    baseline: { name: 'ajv', value: sizes.ajv.gzipBytes, unit: 'B' },
  });
  printTotal(started);
}

runBench(main);
