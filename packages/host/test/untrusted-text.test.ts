import { join } from 'node:path';
import { sessionOpen, toolFailure, toolResult } from '@toolwire/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { cli, hostInProcess, RAW_CONTROL, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';

// A page's words reach the terminal escaped (issue 13 part 6): no ESC, OSC (window title,
// clipboard), BEL or CSI from a page gets through `toolwire`'s human output, its --json output,
// or the host's log, and the escaped text is still there to read.

const OSC_TITLE = '\x1b]0;pwned\x07';
const OSC_CLIPBOARD = '\x1b]52;c;cHduZWQ=\x07';
const CSI_C1 = '\u009b2J';
const RED = '\x1b[31m';
const BIDI = '\u202e';
const SHOWN = {
  title: '\\x1b]0;pwned\\x07',
  clipboard: '\\x1b]52;c;cHduZWQ=\\x07',
  csi: '\\u009b2J',
  red: '\\x1b[31m',
  bidi: '\\u202e',
};

const EVIL_ID = `evil${OSC_TITLE}.id`;
const EVIL_URL = `http://evil.test/${OSC_TITLE}`;
const EVIL_TITLE = `Shop ${OSC_CLIPBOARD}${BIDI}`;

const pageTools = () => [
  tool('demo.echo', (args) => args, { name: 'Echo', description: 'Returns its input.' }),
  tool(
    'evil.text',
    () =>
      toolResult(`result ${OSC_TITLE}\nline two ${CSI_C1}\x07`, {
        message: `note ${RED}red`,
      }),
    {
      name: `Evil ${OSC_CLIPBOARD}`,
      description: `Looks fine ${CSI_C1}${RED}\nforged line`,
    },
  ),
  tool(EVIL_ID, () => ({ [`key${RED}`]: `${OSC_CLIPBOARD}${CSI_C1}${BIDI}` })),
  tool('evil.fail', () => {
    throw new Error(`boom ${OSC_TITLE}${CSI_C1}`);
  }),
  tool('evil.code', () => toolFailure({ code: `bad${OSC_TITLE}`, message: `no ${CSI_C1}` })),
  tool(
    'evil.busy',
    () => 1,
    {},
    () => ({ available: false, code: 'busy', reason: `busy ${OSC_TITLE}` }),
  ),
];

const pages: FakePage[] = [];
const stops: (() => Promise<number>)[] = [];
afterEach(async () => {
  for (const page of pages.splice(0)) page.socket.terminate();
  for (const stop of stops.splice(0)) await stop();
});

async function hostilePage(url: string) {
  const page = await FakePage.connect(url, { tools: pageTools(), open: false });
  pages.push(page);
  // Well formed, with hostile text in it.
  page.send(
    sessionOpen({
      sdk: { name: `sdk${CSI_C1}`, version: `1${RED}` },
      page: { origin: 'http://evil.test', url: EVIL_URL, title: EVIL_TITLE },
      session: 'evil-key',
    }),
  );
  return page;
}

async function setup() {
  const env = { TOOLWIRE_STATE: join(tempDir('toolwire-text-'), 'host.json') };
  const host = await hostInProcess(env, ['--max-tool-policy', 'write']);
  stops.push(host.stop);
  await hostilePage(host.url);
  await until(() => host.err().includes('catalog tools'));
  return { env, host };
}

/** No raw control in either stream; `expected` (escaped forms) visible in `text`. */
function clean(run: { out: string; err: string }, text: string, expected: string[]) {
  expect(run.out).not.toMatch(RAW_CONTROL);
  expect(run.err).not.toMatch(RAW_CONTROL);
  for (const shown of expected) expect(text).toContain(shown);
}

describe('untrusted text from a page, in the terminal', () => {
  it('sessions: the URL, title and SDK escaped, in the table and in --json', async () => {
    const { env } = await setup();
    const table = await cli(['sessions'], env);
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/\n[0-9a-f]{8}\s+-\s+6\s+write\s+-\s+sdk/); // the row is there
    clean(table, table.out, [SHOWN.title, SHOWN.clipboard, SHOWN.bidi, SHOWN.csi, SHOWN.red]);
    const json = await cli(['sessions', '--json'], env);
    clean(json, json.out, ['\\u009b2J', '\\u202e', '\\u001b]52;c;']);
    const [session] = JSON.parse(json.out).sessions;
    // The JSON still says exactly what the page said.
    expect(session.page).toEqual({ origin: 'http://evil.test', url: EVIL_URL, title: EVIL_TITLE });
    expect(session.sdk).toEqual({ name: `sdk${CSI_C1}`, version: `1${RED}` });
  });

  it('tools: ids, names, descriptions and reasons escaped; honest rows intact', async () => {
    const { env } = await setup();
    const table = await cli(['tools', '--detail', 'full'], env);
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/\ndemo\.echo\s+read\s+yes\s+yes\s+page\s+Returns its input\.\n/);
    expect(table.out).toContain('\ndemo.echo (Echo)\n');
    clean(table, table.out, [
      `evil${SHOWN.title}.id`,
      `Evil ${SHOWN.clipboard}`,
      `Looks fine ${SHOWN.csi}${SHOWN.red}`,
      `busy ${SHOWN.title}`,
      SHOWN.bidi,
    ]);
    // A page's newline cannot forge a row of its own.
    expect(table.out).not.toMatch(/\nforged line/);
    const json = await cli(['tools', '--json'], env);
    clean(json, json.out, ['\\u009b2J']);
    const ids = JSON.parse(json.out).tools.map((t: { id: string }) => t.id);
    expect(ids).toContain(EVIL_ID);
  });

  it('call: results, messages and errors escaped, in human and --json output', async () => {
    const { env } = await setup();
    const honest = await cli(['call', 'demo.echo', '--args', '{"text":"hi"}'], env);
    expect(honest).toEqual({ code: 0, out: '{\n  "text": "hi"\n}\n', err: '' });

    const text = await cli(['call', 'evil.text'], env);
    expect(text.code).toBe(0);
    // A multi-line body keeps its newline, nothing else.
    expect(text.out).toBe(
      `note ${SHOWN.red}red\nresult ${SHOWN.title}\nline two ${SHOWN.csi}\\x07\n`,
    );
    clean(text, text.out, []);
    const object = await cli(['call', EVIL_ID], env);
    expect(object.code).toBe(0);
    clean(object, object.out, ['\\u001b[31m', '\\u009b2J', '\\u202e']);
    expect(JSON.parse(object.out)).toEqual({ [`key${RED}`]: `${OSC_CLIPBOARD}${CSI_C1}${BIDI}` });
    const json = await cli(['call', 'evil.text', '--json'], env);
    clean(json, json.out, ['\\u009b2J']);
    expect(JSON.parse(json.out).result.result).toBe(`result ${OSC_TITLE}\nline two ${CSI_C1}\x07`);

    const thrown = await cli(['call', 'evil.fail'], env);
    expect(thrown.code).toBe(1);
    expect(thrown.err).toMatch(/^toolwire: tool_execution_exception: [^\n]*\n$/);
    clean(thrown, thrown.err, [`boom ${SHOWN.title}${SHOWN.csi}`]);
    const coded = await cli(['call', 'evil.code'], env);
    expect(coded.code).toBe(1);
    clean(coded, coded.err, [`bad${SHOWN.title}: no ${SHOWN.csi}`]);
    const codedJson = await cli(['call', 'evil.code', '--json'], env);
    clean(codedJson, codedJson.out + codedJson.err, []);
    expect(JSON.parse(codedJson.out).error.message).toBe(`no ${CSI_C1}`);
  });

  it('batch: rows and the failure line escaped', async () => {
    const { env } = await setup();
    const file = join(tempDir('toolwire-text-'), 'batch.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      file,
      JSON.stringify([
        { toolId: 'demo.echo', arguments: { n: 1 } },
        { toolId: EVIL_ID },
        { toolId: 'evil.fail' },
      ]),
    );
    const table = await cli(['batch', file, '--continue-on-error'], env);
    expect(table.code).toBe(1);
    expect(table.out).toMatch(/^#\s+TOOL\s+OK\s+RESULT\n0\s+demo\.echo\s+yes\s+\{"n":1\}\n/);
    clean(table, table.out + table.err, [`evil${SHOWN.title}.id`, SHOWN.csi, SHOWN.title]);
    expect(table.err).toMatch(/^toolwire: batch call 2 failed: [^\n]*\n$/);
    const json = await cli(['batch', file, '--continue-on-error', '--json'], env);
    clean(json, json.out, ['\\u009b2J']);
    expect(JSON.parse(json.out).result.results[1].toolId).toBe(EVIL_ID);
  });

  it("the host's log: the page's URL, title and SDK escaped", async () => {
    const { host } = await setup();
    await until(() => host.err().includes('evil.test'));
    expect(host.err()).toContain(`session `);
    expect(host.err()).toContain(`http://evil.test/${SHOWN.title}`);
    expect(host.err()).toContain(`Shop ${SHOWN.clipboard}${SHOWN.bidi}`);
    expect(host.err()).not.toMatch(RAW_CONTROL);
  });
});
