import { type Browser, expect, type Page, test } from '@playwright/test';
import type { JsonObject } from '../packages/protocol/src/index.js';
import { type HostConnection, TestHost } from './support/ws-host.js';

// A form tool takes the same calls on every road: the page's own
// `document.modelContext.executeTool` and the wire (`tool.call` from a real host over a real
// socket, through the page's endpoint) both accept a call or both refuse it, row by row of a
// table of arguments x form shapes (docs/browser-api.md "Declarative forms: what a call may
// fill"). Project chromium: the polyfill's form tools. Project chromium-native: Chromium's
// own, which the endpoint serves as they are.

type Expected = 'accept' | 'refuse' | 'wait';

interface Row {
  tool: string;
  args: Record<string, unknown>;
  /** What the form does with it (the polyfill; Chromium the same unless `native` says). */
  expect: Expected;
  native?: Expected;
  /** An accepted call: what the form submitted (the fields the row is about). */
  submitted?: Record<string, unknown>;
  /** A refused call on the polyfill's road: the `$`-path an issue names. */
  at?: string;
  why: string;
}

const ROWS: Row[] = [
  // minlength / maxlength: HTML checks them against what a user typed, never a script's value.
  {
    tool: 'lengths',
    args: { code: 'ab', note: 'longer' },
    expect: 'accept',
    submitted: { code: 'ab', note: 'longer' },
    why: 'below minlength, above maxlength',
  },
  {
    tool: 'lengths',
    args: { code: 'abcdefgh' },
    expect: 'accept',
    submitted: { code: 'abcdefgh' },
    why: 'above maxlength',
  },
  {
    tool: 'lengths',
    args: { code: 3 },
    expect: 'refuse',
    native: 'accept',
    at: '$.code',
    why: 'a number for a text control (Chromium writes it as text)',
  },
  // required: the form refuses an empty or unchecked control when it is submitted.
  {
    tool: 'required',
    args: { who: 'ada', agree: true, plan: 'yearly' },
    expect: 'accept',
    submitted: { who: 'ada', agree: 'on', plan: 'yearly' },
    why: 'all given',
  },
  {
    tool: 'required',
    args: { agree: true, plan: 'yearly' },
    expect: 'refuse',
    at: '$.who',
    why: 'missing',
  },
  {
    tool: 'required',
    args: { who: '', agree: true, plan: 'yearly' },
    expect: 'refuse',
    at: '$.who',
    why: 'empty',
  },
  {
    tool: 'required',
    args: { who: 'ada', agree: false, plan: 'yearly' },
    expect: 'refuse',
    at: '$.agree',
    why: 'a required checkbox left unchecked',
  },
  {
    tool: 'required',
    args: { who: 'ada', agree: true },
    expect: 'refuse',
    at: '$.plan',
    why: 'a required radio group with none chosen',
  },
  // pattern: HTML matches the whole value, and never checks an empty one.
  {
    tool: 'pattern',
    args: { sku: 'AB-12' },
    expect: 'accept',
    submitted: { sku: 'AB-12' },
    why: 'matches',
  },
  { tool: 'pattern', args: { sku: 'ab-12' }, expect: 'refuse', at: '$.sku', why: 'no match' },
  {
    tool: 'pattern',
    args: { sku: 'xAB-12' },
    expect: 'refuse',
    at: '$.sku',
    why: 'matches only a part',
  },
  {
    tool: 'pattern',
    args: { sku: '' },
    expect: 'accept',
    submitted: { sku: '' },
    why: 'empty',
  },
  { tool: 'pattern', args: {}, expect: 'accept', submitted: { sku: '' }, why: 'not given' },
  // min / max / step: a number control refuses; a range control moves the value into range.
  {
    tool: 'numbers',
    args: { seats: 8, odd: 3 },
    expect: 'accept',
    submitted: { seats: '8', odd: '3' },
    why: 'in range, on a step from min',
  },
  { tool: 'numbers', args: { seats: 9 }, expect: 'refuse', at: '$.seats', why: 'above max' },
  { tool: 'numbers', args: { seats: 1.5 }, expect: 'refuse', at: '$.seats', why: 'off step' },
  {
    tool: 'numbers',
    args: { odd: 2 },
    expect: 'refuse',
    at: '$.odd',
    why: 'a multiple of step, but steps count from min',
  },
  {
    tool: 'numbers',
    args: { volume: 50 },
    expect: 'accept',
    submitted: { volume: '10' },
    why: 'a range control takes it as its max',
  },
  {
    tool: 'numbers',
    args: { seats: '3' },
    expect: 'refuse',
    native: 'accept',
    at: '$.seats',
    why: 'a string for a number control (Chromium parses it)',
  },
  // Typed text: the control's own checks.
  {
    tool: 'typed',
    args: { mail: 'ada@example.com', site: 'https://example.com/', day: '2026-02-28', at: '09:30' },
    expect: 'accept',
    submitted: { mail: 'ada@example.com', site: 'https://example.com/', day: '2026-02-28' },
    why: 'all well formed',
  },
  {
    tool: 'typed',
    args: { mail: 'ada@host' },
    expect: 'accept',
    submitted: { mail: 'ada@host' },
    why: 'an address HTML takes, without a dot',
  },
  { tool: 'typed', args: { mail: 'nope' }, expect: 'refuse', at: '$.mail', why: 'not an email' },
  { tool: 'typed', args: { site: 'nope' }, expect: 'refuse', at: '$.site', why: 'not a URL' },
  {
    tool: 'typed',
    args: { day: '2026-02-30' },
    expect: 'refuse',
    at: '$.day',
    why: 'no such date',
  },
  { tool: 'typed', args: { at: '25:00' }, expect: 'refuse', at: '$.at', why: 'no such time' },
  // Choices: only their options.
  {
    tool: 'choices',
    args: { size: 'M', wrap: 'no', extras: ['bag', 'card'] },
    expect: 'accept',
    submitted: { size: 'M', wrap: 'no', extras: ['bag', 'card'] },
    why: 'options',
  },
  { tool: 'choices', args: { size: 'XL' }, expect: 'refuse', at: '$.size', why: 'no option' },
  {
    tool: 'choices',
    args: { extras: ['bag', 'box'] },
    expect: 'refuse',
    at: '$.extras[1]',
    why: 'one item no option',
  },
  // Without toolautosubmit the user completes and submits the form: its checks are the user's.
  {
    tool: 'by-hand',
    args: { user: 'ada' },
    expect: 'wait',
    submitted: { user: 'ada', secret: 's3cret' },
    why: 'a required control the user fills',
  },
  {
    tool: 'by-hand',
    args: { user: 5 },
    expect: 'refuse',
    native: 'wait',
    at: '$.user',
    why: 'a number for a text control',
  },
];

/** The wire's code for a refusal: the polyfill's form says why; Chromium's rejects with no detail. */
const REFUSED = { polyfill: 'tool_arguments_schema_invalid', native: 'tool_execution_exception' };

type Outcome =
  | { ok: true; result: any }
  | { ok: false; name?: string; code?: string; details?: any }
  | { waited: true; ok: boolean; result?: any; name?: string; code?: string };

let host: TestHost;
let page: Page;
let connection: HostConnection;

async function openPage(browser: Browser): Promise<void> {
  host = await new TestHost().start();
  page = await browser.newPage();
  const next = host.nextConnection();
  await page.goto(`/e2e/pages/agreement/index.html#${encodeURIComponent(host.url)}`);
  connection = await next;
  // Every form is a tool on the wire (Chromium registers its own once the page has loaded).
  await expect
    .poll(async () => {
      const listing: any = await connection.client.query({ detail: 'index' });
      return listing.tools
        .map((tool: { id: string }) => tool.id)
        .filter((id: string) => !id.startsWith('ui.'))
        .sort();
    })
    .toEqual(['by-hand', 'choices', 'lengths', 'numbers', 'pattern', 'required', 'typed']);
}

/** The user's part of a waiting call: the control left to them, then the submit button. */
async function completeByHand(): Promise<void> {
  await page.fill('#by-hand input[name="secret"]', 's3cret');
  await page.click('#by-hand button[type="submit"]');
}

/** Refused at once, or filled and waiting for the user (`settled` says which). */
async function waitedFor(row: Row, settled: () => Promise<boolean>): Promise<boolean> {
  const form = row.tool;
  await expect
    .poll(
      async () =>
        (await settled()) || (await page.evaluate((id) => (window as any).agree.active(id), form)),
    )
    .toBe(true);
  return !(await settled());
}

/** The page's own road. */
async function viaExecuteTool(row: Row): Promise<Outcome> {
  await page.evaluate(() => (window as any).agree.reset());
  await page.evaluate(({ tool, args }) => (window as any).agree.start(tool, args), row);
  const settled = () => page.evaluate((tool) => (window as any).agree.settled(tool), row.tool);
  const waited = row.tool === 'by-hand' && (await waitedFor(row, settled));
  if (waited) await completeByHand();
  const outcome = await page.evaluate((tool) => (window as any).agree.outcome(tool), row.tool);
  return waited ? { ...outcome, waited } : outcome;
}

/** The wire's road: tool.call from the host, through the page's endpoint. */
async function viaWire(row: Row): Promise<Outcome> {
  await page.evaluate(() => (window as any).agree.reset());
  let done = false;
  const call = connection.client.call({ toolId: row.tool, arguments: row.args as JsonObject }).then(
    (answer: any) => ({ ok: true as const, result: answer.result }),
    (error: any) => ({ ok: false as const, code: error.code, details: error.details }),
  );
  void call.then(() => {
    done = true;
  });
  const waited = row.tool === 'by-hand' && (await waitedFor(row, async () => done));
  if (waited) await completeByHand();
  const outcome = await call;
  return waited ? { ...outcome, waited } : outcome;
}

function kind(outcome: Outcome): Expected {
  if ('waited' in outcome) return 'wait';
  return outcome.ok ? 'accept' : 'refuse';
}

test.beforeAll(async ({ browser }) => {
  // The page's own bound (a page load, the endpoint's socket, Chromium's form scan).
  test.setTimeout(60_000);
  await openPage(browser);
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
});

// The rows share one page and its socket (opened above): each call starts from reset forms.
test.describe('a form tool takes the same calls through executeTool and the wire', () => {
  for (const row of ROWS) {
    test(`${row.tool} ${JSON.stringify(row.args)}: ${row.why}`, async () => {
      const native = test.info().project.name === 'chromium-native';
      const expected = (native && row.native) || row.expect;
      const own = await viaExecuteTool(row);
      const wire = await viaWire(row);
      // Agreement first: both accept, or both refuse, or both wait for the user.
      expect({ executeTool: kind(own), wire: kind(wire) }).toEqual({
        executeTool: expected,
        wire: expected,
      });
      if (own.ok && wire.ok) {
        // The same submission either way.
        expect(wire.result).toEqual(own.result);
        if (row.submitted) expect(own.result).toMatchObject(row.submitted);
        return;
      }
      // Refused: Chromium's executeTool says UnknownError (so does the polyfill's, as
      // Chromium's); the wire says why in its code.
      expect((own as { name?: string }).name).toBe('UnknownError');
      const code = (wire as { code?: string }).code;
      expect(code).toBe(native ? REFUSED.native : REFUSED.polyfill);
      if (!native && row.at) {
        const details = (wire as { details?: { path: string }[] }).details ?? [];
        // Each property named once (a radio group's radios do not each say it).
        expect(details.filter((issue) => issue.path === row.at)).toHaveLength(1);
      }
    });
  }
});
