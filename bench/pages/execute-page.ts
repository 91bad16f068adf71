/**
 * `document.modelContext.executeTool` timed in the page (bench/polyfill.bench.ts drives it), the
 * same code on two pages: ours (the built `polyfill.iife.js`) and MCP-B's polyfill
 * (`@mcp-b/webmcp-polyfill`), each on a tab of its own. One echo tool with an `inputSchema`, at
 * about 100 B and 10 KiB; each timed loop awaits its calls one after another and checks the last
 * answer after the timer stops. MCP-B's `executeTool` takes the input as JSON text (Chromium's
 * shape before it took an object), so its loop stringifies the input in the loop: both sides
 * start from the same object and end with the JSON string of the result.
 *
 * Served to the browser with types stripped; it must not import anything at run time.
 */

interface RegisteredTool {
  name: string;
}
interface SpecModelContext {
  registerTool(tool: object): Promise<unknown>;
  getTools(): Promise<RegisteredTool[]>;
  executeTool(tool: RegisteredTool, input: unknown): Promise<string | null>;
}

const SMALL = Object.freeze({
  id: 4217,
  query: 'weather in Lisbon',
  units: 'metric',
  limit: 10,
  tags: Object.freeze(['forecast', 'today']),
});

/** About 10 KiB of records, as a tool's table input would be. */
function records(bytes: number): { records: object[] } {
  const list: object[] = [];
  while (JSON.stringify(list).length < bytes) {
    const i = list.length;
    list.push({ id: i, name: `record ${i}`, score: i * 1.5, ok: i % 2 === 0 });
  }
  return { records: list };
}
const LARGE = records(10 * 1024 - 40);

const SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    query: { type: 'string', maxLength: 200 },
    units: { enum: ['metric', 'imperial'] },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    tags: { type: 'array', items: { type: 'string' } },
    records: { type: 'array', items: { type: 'object' } },
  },
};

const INPUTS = { small: SMALL, large: LARGE };
const EXPECTED = { small: JSON.stringify(SMALL), large: JSON.stringify(LARGE) };

const echo = (input: unknown) => input;
let tool: RegisteredTool;
let takesText = false;

async function setup(options: { takesText: boolean }): Promise<{ bytes: number[] }> {
  takesText = options.takesText;
  const mc = (document as unknown as { modelContext: SpecModelContext }).modelContext;
  await mc.registerTool({
    name: 'echo_spec',
    description: 'Echoes its input.',
    inputSchema: SCHEMA,
    execute: echo,
  });
  const found = (await mc.getTools()).find((entry) => entry.name === 'echo_spec');
  if (!found) throw new Error('getTools() does not list echo_spec');
  tool = found;
  return { bytes: [EXPECTED.small.length, EXPECTED.large.length] };
}

/** `n` sequential awaited calls; microseconds per call. Throws on a wrong answer. */
async function loop(options: { size: 'small' | 'large'; n: number }): Promise<number> {
  const mc = (document as unknown as { modelContext: SpecModelContext }).modelContext;
  const input = INPUTS[options.size];
  const { n } = options;
  let last: string | null = null;
  const start = performance.now();
  if (takesText) {
    for (let i = 0; i < n; i++) last = await mc.executeTool(tool, JSON.stringify(input));
  } else {
    for (let i = 0; i < n; i++) last = await mc.executeTool(tool, input);
  }
  const us = ((performance.now() - start) * 1000) / n;
  if (last !== EXPECTED[options.size])
    throw new Error(`executeTool answered ${String(last).slice(0, 120)}`);
  return us;
}

export interface ExecuteBenchApi {
  setup: typeof setup;
  loop: typeof loop;
}

(window as unknown as { executeBench: ExecuteBenchApi }).executeBench = { setup, loop };
