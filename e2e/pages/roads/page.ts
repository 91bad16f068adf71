// The same set of tools, each failing one way, for every road a call can take
// (e2e/contract-roads.e2e.ts). Registered through `document.modelContext`, as a page written for
// Chrome's WebMCP would: the browser's own where it has one, else toolwire's polyfill (which the
// endpoint script installed). The page records every signal that aborted, so a test can see
// that a deadline reached the tool.

interface Tool {
  name: string;
  description: string;
  inputSchema?: object;
  annotations?: Record<string, boolean>;
  execute(input: any, client?: unknown): unknown;
}
const modelContext = (
  document as unknown as {
    modelContext: { registerTool(tool: Tool): Promise<unknown> };
  }
).modelContext;
const w = window as unknown as { runs: string[]; aborted: string[] };
w.runs = [];
w.aborted = [];
const read = { readOnlyHint: true };
const counted = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

/**
 * Resolves never. The spec hands a tool no signal; toolwire's polyfill hands one on its second
 * argument, and its abort is recorded.
 */
function hang(name: string, client: unknown): Promise<never> {
  const signal = (client as { signal?: AbortSignal } | undefined)?.signal;
  signal?.addEventListener('abort', () => w.aborted.push(name));
  return new Promise(() => {});
}

const tools: Tool[] = [
  {
    name: 'contract.ok',
    description: 'Answers the number it is given.',
    inputSchema: counted,
    annotations: read,
    execute: ({ n }: { n: number }) => {
      w.runs.push('contract.ok');
      return { n };
    },
  },
  {
    name: 'contract.schema',
    description: 'Takes an integer n; the test sends a string.',
    inputSchema: counted,
    annotations: read,
    execute: () => {
      w.runs.push('contract.schema');
      return {};
    },
  },
  {
    name: 'contract.lowering',
    description: 'Returns a value that refers to itself, which JSON cannot hold.',
    annotations: read,
    execute: () => {
      w.runs.push('contract.lowering');
      const value: Record<string, unknown> = { name: 'loop' };
      value.self = value;
      return value;
    },
  },
  {
    name: 'contract.throw',
    description: 'Throws.',
    annotations: read,
    execute: () => {
      w.runs.push('contract.throw');
      throw new Error('the tool broke');
    },
  },
  {
    name: 'contract.abort',
    description: 'Rejects with an AbortError of its own (a fetch it aborted, say).',
    annotations: read,
    execute: async () => {
      w.runs.push('contract.abort');
      throw new DOMException('the tool gave up on its own fetch', 'AbortError');
    },
  },
  {
    name: 'contract.hang',
    description: 'Never finishes.',
    annotations: read,
    execute: (_input: unknown, client: unknown) => {
      w.runs.push('contract.hang');
      return hang('contract.hang', client);
    },
  },
  {
    name: 'contract.write',
    description: 'A write tool: above a host granted read.',
    execute: () => {
      w.runs.push('contract.write');
      return { written: true };
    },
  },
];
for (const tool of tools) await modelContext.registerTool(tool);
// The spec's annotations have no way to say "destructive", so the one critical tool (which a
// read-write guard hides) is registered through toolwire's own `toolManager`, which the endpoint
// script installed beside `document.modelContext`.
await (
  window as unknown as { toolManager: { register(tool: object): Promise<void> } }
).toolManager.register({
  name: 'contract.wipe',
  policy: 'critical',
  naturalLanguageProperties: { description: 'A critical tool: hidden by a read-write guard.' },
  execute: () => {
    w.runs.push('contract.wipe');
    return { wiped: true };
  },
});
(document.getElementById('status') as HTMLElement).textContent = 'ready';
