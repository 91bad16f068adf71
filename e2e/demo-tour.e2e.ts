import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { toolwire } from './support/cli.js';

// `pnpm demo` without a display runs a scripted tour: the whole chain from a host in Node to
// the demo app in headless Chromium, its cross-origin calendar frame included. Run as a process
// (the build is done by test:e2e), it must exit 0 and its transcript must hold each result.

// The demo's two ports (TOOLWIRE_DEMO_PORT_A / _B, as demo/serve.ts reads them): free ones (0)
// unless given, since other suites and checkouts may serve the demo at once. The tour prints
// the origins it serves on; the assertions read them from there.
const PORTS = {
  TOOLWIRE_DEMO_PORT_A: process.env.TOOLWIRE_DEMO_PORT_A ?? '0',
  TOOLWIRE_DEMO_PORT_B: process.env.TOOLWIRE_DEMO_PORT_B ?? '0',
};

/** The origins in the tour's first lines: the app's (A) and its calendar frame's (B). */
function origins(out: string): { app: string; frame: string } {
  const app = /the app, paired with the host: +(http:\/\/localhost:\d+)\/app\/#toolwire=/.exec(out);
  const frame = /its calendar widget \(a frame\): +(http:\/\/127\.0\.0\.1:\d+)\/app\//.exec(out);
  expect(app, out).not.toBeNull();
  expect(frame, out).not.toBeNull();
  // Ports that were given are the ones served on (a default would give way; these do not).
  if (PORTS.TOOLWIRE_DEMO_PORT_A !== '0')
    expect(app?.[1]).toMatch(new RegExp(`:${PORTS.TOOLWIRE_DEMO_PORT_A}$`));
  if (PORTS.TOOLWIRE_DEMO_PORT_B !== '0')
    expect(frame?.[1]).toMatch(new RegExp(`:${PORTS.TOOLWIRE_DEMO_PORT_B}$`));
  return { app: app?.[1] as string, frame: frame?.[1] as string };
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const ISO = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`;

test('the scripted tour runs end to end and exits 0 with --once', async () => {
  // The whole test's bound, not a wait: more work than the default 30 s allows a busy machine.
  test.setTimeout(120_000);
  const child = spawn(
    'npx',
    ['tsx', '--conditions=@toolwire/source', 'demo/tour.ts', '--tour', '--once'],
    {
      env: {
        ...process.env,
        DISPLAY: '',
        ...PORTS,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, out).toBe(0);
  const { frame } = origins(out);
  const framePattern = literal(frame);

  // The catalog: the app's tools, the frame's coalesced ones, the built-ins.
  expect(out).toContain("The host lists the app's tools (tool.query): 12 of them");
  // The search form: a tool by its HTML attributes alone.
  expect(out).toMatch(/notes\.search +write +the app\n/);
  expect(out).toMatch(
    new RegExp(`calendar\\.events +read +the calendar frame, ${framePattern}\\n`),
  );
  expect(out).toMatch(
    new RegExp(`calendar\\.schedule +write +the calendar frame, ${framePattern}\\n`),
  );
  expect(out).toMatch(/notes\.tags +read +the app\n/);
  expect(out).toMatch(/ui\.perform_action +write +built into the endpoint\n/);

  expect(out).toContain('> notes.add {"text":"Buy milk #errands"}\n   < {"count":1}');
  expect(out).toContain('< error tool_arguments_schema_invalid: ');
  // A Date in: the page's tool got a Date (it called toISOString on it).
  expect(out).toContain(
    '> notes.due {"before":"2100-01-01T00:00:00Z"}\n   < {"before":"2100-01-01T00:00:00.000Z","count":1}',
  );
  // A Blob out, lowered to {mimeType, data}.
  expect(out).toContain('< {"mimeType":"text/plain","data":"LSBCdXkgbWlsayAjZXJyYW5kcw=="}');
  expect(out).toContain('data, decoded: "- Buy milk #errands"');
  expect(out).toContain('< {"performed":"tap"}');
  // A Map out, lowered to an object (string keys).
  expect(out).toContain('> notes.tags {}\n   < {"errands":1,"home":1}');
  // The form tool: the arguments filled the form, it submitted, the page answered.
  expect(out).toMatch(
    new RegExp(
      `> notes\\.search \\{"text":"milk","order":"oldest"\\}\\n {3}< \\{"count":1,"notes":\\[\\{"text":"Buy milk #errands","at":"${ISO}","tags":\\["errands"\\]\\}\\]\\}`,
    ),
  );
  expect(out).toContain(`the form's search field now reads "milk"`);
  // The frame tool: a Date in (it arrived as a Date), a Map keyed by Dates out.
  expect(out).toMatch(
    new RegExp(
      `> calendar\\.events \\{"before":"${ISO}"\\}\\n {3}< \\{"from":"${framePattern}","beforeArrivedAs":"Date","events":\\{"${ISO}":"Team standup","${ISO}":"Dentist"\\}\\}`,
    ),
  );
  // The batch, across the page and the frame.
  expect(out).toContain('< success: true, 3 of 3 completed');
  expect(out).toMatch(/0 notes\.add +\{"count":3\}/);
  expect(out).toMatch(
    new RegExp(
      `1 calendar\\.schedule +\\{"from":"${framePattern}","scheduled":"${ISO}","count":4\\}`,
    ),
  );
  expect(out).toMatch(/2 notes\.tags +\{"errands":2,"home":1,"work":1\}/);
  expect(out).toContain(
    'notes:    Buy milk #errands | Water plants #home | Call Ada #work #errands',
  );
  expect(out).toMatch(
    /calendar: .*Team standup \| .*Call Ada \| .*Dentist \| .*Ada's birthday dinner/,
  );
  expect(out).toContain('tour done.');
});

// Without --once the demo keeps serving, and the app stays paired in its headless Chromium,
// so `pnpm toolwire tools` (the built CLI, as a process) answers, as docs/getting-started.md
// ("The demo") and the app's "From a terminal" box promise. SIGTERM stops it cleanly.
test('after the tour the app stays connected: toolwire tools and call answer; SIGTERM stops it', async () => {
  test.setTimeout(150_000);
  const state = join(mkdtempSync(join(tmpdir(), 'toolwire-demo-e2e-')), 'host.json');
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/tour.ts', '--tour'], {
    env: {
      ...process.env,
      DISPLAY: '',
      TOOLWIRE_STATE: state,
      ...PORTS,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    await expect
      .poll(() => out, { timeout: 120_000, intervals: [500] })
      .toMatch(/tour done\.[\s\S]*Serving\. The app stays open and paired/);
    const { app, frame } = origins(out);
    const env = { TOOLWIRE_STATE: state };
    const tools = await toolwire(['tools'], env);
    expect(tools.code, tools.err).toBe(0);
    expect(tools.out).toMatch(new RegExp(`^session [0-9a-f]{8}  ${literal(app)} `));
    expect(tools.out).toMatch(/\nnotes\.add +write +yes +yes +page /);
    expect(tools.out).toMatch(
      new RegExp(`\\ncalendar\\.events +read +yes +yes +${literal(frame)} `),
    );
    // What the tour left in the app: the Map of tags, as the box's second command shows it.
    const tags = await toolwire(['call', 'notes.tags'], env);
    expect(tags).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(tags.out)).toEqual({ errands: 2, home: 1, work: 1 });
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited, out).toBe(0);
  expect(existsSync(state)).toBe(false); // the control API's state file went with it
});
