/**
 * What a newcomer types first at the CLI: the call's JSON as a positional argument, arguments
 * the tool's schema refuses (the first line says it in words), and JSON a shell ate the quotes
 * of. A real `toolwire host` in-process, a page over a real WebSocket whose bridge validates.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { cli, hostInProcess, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';

const dir = tempDir('toolwire-first-mistakes-');
let counter = 0;
const cleanup: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const CART_ADD = tool('cart.add', (args) => ({ added: args }), {
  policy: 'read',
  argumentsSchema: {
    type: 'object',
    properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
    required: ['sku'],
  },
});

async function hostWithCart() {
  const env = { TOOLWIRE_STATE: join(dir, `state-${++counter}.json`) };
  const host = await hostInProcess(env);
  cleanup.push(host.stop);
  const page = await FakePage.connect(host.url, { tools: [CART_ADD] });
  cleanup.push(async () => page.socket.terminate());
  await until(() => host.err().includes('catalog'));
  return env;
}

describe('toolwire call, as people first type it', () => {
  it('takes the arguments as a positional JSON argument, as --args does', async () => {
    const env = await hostWithCart();
    const added = '{\n  "added": {\n    "sku": "A-1",\n    "qty": 2\n  }\n}\n';
    expect(await cli(['call', 'cart.add', '--args', '{"sku":"A-1","qty":2}'], env)).toEqual({
      code: 0,
      out: added,
      err: '',
    });
    expect(await cli(['call', 'cart.add', '{"sku":"A-1","qty":2}'], env)).toEqual({
      code: 0,
      out: added,
      err: '',
    });
    // Options may come after it.
    expect(await cli(['call', 'cart.add', '{"sku":"A-1","qty":2}', '--json'], env)).toMatchObject({
      code: 0,
      out: expect.stringContaining('"ok": true'),
    });
    // Given twice, it is a usage error rather than a guess which one counts.
    const twice = await cli(['call', 'cart.add', '{"sku":"A"}', '--args', '{"sku":"B"}'], env);
    expect(twice.code).toBe(2);
    expect(twice.err).toMatch(
      /^toolwire call: give the arguments once: as ARGS or with --args; see toolwire call --help\n$/,
    );
    // A third positional argument is still refused.
    const third = await cli(['call', 'cart.add', '{"sku":"A"}', 'more'], env);
    expect(third.code).toBe(2);
    expect(third.err).toMatch(/^toolwire call: unexpected argument "more"/);
  });

  it('JSON a shell took the quotes from: usage, and how to quote it', async () => {
    const env = await hostWithCart();
    expect((await cli(['call', 'cart.add', '{"sku":"A-1"}'], env)).code).toBe(0);
    // `toolwire call cart.add {"sku":"A-1"}` in a POSIX shell arrives as {sku:A-1}.
    const eaten = await cli(['call', 'cart.add', '{sku:A-1}'], env);
    expect(eaten.code).toBe(2);
    expect(eaten.err).toMatch(
      /^toolwire: the arguments: not valid JSON \(.+\) \(quote it for the shell: '\{"sku":"A-1"\}'\)\n$/,
    );
    const list = await cli(['call', 'cart.add', '["A-1"]'], env);
    expect(list).toMatchObject({ code: 2 });
    expect(list.err).toBe(
      'toolwire: the arguments must be a JSON object, such as \'{"sku":"A-1"}\'\n',
    );
  });

  it('toolwire batch takes the JSON in place of a file, as call takes its arguments', async () => {
    const env = await hostWithCart();
    const file = join(dir, `batch-${counter}.json`);
    const calls = [
      { toolId: 'cart.add', arguments: { sku: 'A-1' } },
      { toolId: 'cart.add', arguments: { sku: 'B-2', qty: 2 } },
    ];
    writeFileSync(file, JSON.stringify(calls));
    const fromFile = await cli(['batch', file, '--json'], env);
    expect(fromFile.code, fromFile.err).toBe(0);
    const inline = await cli(['batch', JSON.stringify(calls), '--json'], env);
    expect(inline.code, inline.err).toBe(0);
    expect(JSON.parse(inline.out).result.results).toEqual(JSON.parse(fromFile.out).result.results);
    const broken = await cli(['batch', '[{toolId:cart.add}]'], env);
    expect(broken.code).toBe(2);
    expect(broken.err).toMatch(/^toolwire: the batch: not valid JSON \(/);
  });

  it("a schema failure's first line says what is wrong in words; the code is unchanged", async () => {
    const env = await hostWithCart();
    expect((await cli(['call', 'cart.add', '{"sku":"A-1","qty":1}'], env)).code).toBe(0);
    const missing = await cli(['call', 'cart.add', '{"qty":2}'], env);
    expect(missing.code).toBe(1);
    expect(missing.err.split('\n')[0]).toBe(
      'toolwire: tool_arguments_schema_invalid: `sku` is required',
    );
    const zero = await cli(['call', 'cart.add', '{"sku":"A-1","qty":0}'], env);
    expect(zero.err.split('\n')[0]).toBe(
      'toolwire: tool_arguments_schema_invalid: `qty` must be an integer >= 1',
    );
    // --json: the machine's view keeps the code and the validator's details.
    const json = await cli(['call', 'cart.add', '{"qty":2}', '--json'], env);
    expect(JSON.parse(json.out)).toMatchObject({
      ok: false,
      error: {
        code: 'tool_arguments_schema_invalid',
        message: '`sku` is required',
        details: [{ path: '$.sku', keyword: 'required' }],
      },
    });
  });
});
