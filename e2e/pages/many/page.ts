// A page with `?count=N` tools of its own (default 5,000), for e2e/listing-paging.e2e.ts (issue
// 16 part 7: no listing cap). Connects to the host in the fragment (`#toolwire=<ws URL>`) once
// every tool is registered, and says how long that took in `window.registeredMs`.
import { connect } from '../../../packages/endpoint/src/index.js';
import { install } from '../../../packages/polyfill/src/index.js';

const count = Number(new URL(location.href).searchParams.get('count') ?? 5000);
const fragment = new URLSearchParams(location.hash.slice(1));
const { toolManager } = install();
const w = window as any;

const started = performance.now();
const registrations: Promise<unknown>[] = [];
for (let i = 0; i < count; i++) {
  const name = `bulk.t${String(i).padStart(5, '0')}`;
  registrations.push(
    toolManager.register({
      name,
      naturalLanguageProperties: {
        title: `Tool ${i}`,
        description: `Bulk tool number ${i}.`,
        annotations: { readOnlyHint: true },
        inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
      },
      execute: (input: { n?: number }) => ({ tool: i, n: input.n ?? null }),
    }),
  );
}
await Promise.all(registrations);
w.registeredMs = performance.now() - started;

const session = connect({ url: fragment.get('toolwire') ?? '', guard: 'full-access' });
w.session = session;
session.addEventListener('statuschange', () => {
  (document.getElementById('status') as HTMLElement).textContent = session.status;
});
