export interface ColdSample {
  ms: number;
  listMs: number;
  mapMs: number;
  listed: number;
  problems: string[];
}

/** Runs in a fresh page: 1,000 sequential registrations, nothing warmed first. */
async function coldInPage(count: number): Promise<ColdSample> {
  const win = window as any;
  const problems: string[] = [];
  const defs = [];
  for (let i = 0; i < count; i++) {
    defs.push({
      name: `cold.t${String(i).padStart(4, '0')}`,
      naturalLanguageProperties: { description: `Tool number ${i}.` },
      inputSchema: {
        type: 'object',
        properties: { q: { type: 'string' }, n: { type: 'integer', minimum: 0 } },
        required: ['q'],
      },
      execute: (input: unknown) => input,
    });
  }
  const start = performance.now();
  for (const def of defs) await win.toolManager.register(def);
  const registered = performance.now();
  const list = await win.tools.getTools();
  const end = performance.now();
  if (list.length !== count) problems.push(`getTools() listed ${list.length} of ${count}`);
  const mapStart = performance.now();
  const map = new Map<string, unknown>();
  for (const def of defs) map.set(def.name, def);
  const sorted = [...map.keys()].sort();
  const mapMs = performance.now() - mapStart;
  if (sorted.length !== count) problems.push('the map baseline is off');
  return { ms: end - start, listMs: end - registered, mapMs, listed: list.length, problems };
}

export interface LayeringTimes {
  /** us per call, one entry per round, by case. */
  us: Record<string, number[]>;
  problems: string[];
  /** Was the mirrored tool listed natively as soon as register() resolved? */
  listedAtOnce?: boolean;
}

/** Runs in a page with native WebMCP: mirrored and native echoes through native executeTool. */
async function layeringInPage(options: {
  batch: number;
  rounds: number;
  sizes: Record<string, number>;
}): Promise<LayeringTimes> {
  const win = window as any;
  const mc = (document as any).modelContext;
  const problems: string[] = [];
  const schema = { type: 'object', properties: { text: { type: 'string' } } };
  const echo = (input: unknown) => input;
  await mc.registerTool({
    name: 'native.echo',
    description: 'Echoes its input.',
    inputSchema: schema,
    execute: echo,
  });
  await win.toolManager.register({
    name: 'mirrored.echo',
    naturalLanguageProperties: { description: 'Echoes its input.' },
    inputSchema: schema,
    execute: echo,
  });
  // register() resolves once the tool is listed natively (checked: listedAtOnce); the bench
  // still waits a little, so that it can measure calls on a build where it did not.
  const first = await mc.getTools();
  let listed = first;
  for (let i = 0; i < 100 && listed.length < 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    listed = await mc.getTools();
  }
  const listedAtOnce = first.length === 2;
  const byName = (name: string) => listed.find((tool: { name: string }) => tool.name === name);
  const handles: Record<string, unknown> = {
    native: byName('native.echo'),
    mirrored: byName('mirrored.echo'),
  };
  if (!handles.native || !handles.mirrored) {
    problems.push(
      `native getTools() lists ${listed.map((t: { name: string }) => t.name).join(', ')}`,
    );
    return { us: {}, problems };
  }
  const inputs: Record<string, object> = {};
  for (const [size, bytes] of Object.entries(options.sizes))
    inputs[size] = { text: 'x'.repeat(bytes - 11) };
  const us: Record<string, number[]> = {};
  const cases: [string, unknown, object][] = [];
  for (const size of Object.keys(options.sizes))
    for (const kind of ['native', 'mirrored'])
      cases.push([`${kind}@${size}`, handles[kind], inputs[size] as object]);
  for (const [name, tool, input] of cases) {
    us[name] = [];
    const answer = JSON.parse(await mc.executeTool(tool, input));
    if (JSON.stringify(answer) !== JSON.stringify(input)) problems.push(`${name}: a wrong answer`);
  }
  for (let round = -2; round < options.rounds; round++) {
    // Interleaved, the order rotating by round.
    for (let k = 0; k < cases.length; k++) {
      const [name, tool, input] = cases[
        (k + Math.max(round, 0)) % cases.length
      ] as (typeof cases)[0];
      const start = performance.now();
      for (let i = 0; i < options.batch; i++) await mc.executeTool(tool, input);
      const perCall = ((performance.now() - start) * 1000) / options.batch;
      if (round >= 0) (us[name] as number[]).push(perCall);
    }
  }
  return { us, problems, listedAtOnce };
}

const api = { cold: coldInPage, layering: layeringInPage };
export type RegistrationBenchApi = typeof api;
(window as any).registrationBench = api;
