// The declarative e2e page: the polyfill from source, plus a form inside an open shadow root.
// It also exposes the endpoint's catalog reader, to show form tools reach the wire unchanged.
import { readPageTools } from '../../../packages/endpoint/src/page-tools.js';
import { expandSchema } from '../../../packages/lowering/src/index.js';
import { install } from '../../../packages/polyfill/src/index.js';

const { tools } = install();
const host = document.getElementById('host') as HTMLElement;
host.attachShadow({ mode: 'open' }).innerHTML = `
  <form toolname="shadowed" tooldescription="Inside a shadow root" toolautosubmit>
    <input name="word" required /><button type="submit">Go</button>
  </form>`;

/** The endpoint's catalog entries for the page's tools, and a call through one of them. */
async function endpointView(id: string, args: Record<string, unknown>) {
  const catalog = await readPageTools({
    tools,
    origin: location.origin,
    expandSchema: (schema) => expandSchema(schema as Parameters<typeof expandSchema>[0]) as object,
    reserved: new Set(),
  });
  const entry = catalog.find((tool) => tool.definition.id === id);
  return {
    ids: catalog.map((tool) => tool.definition.id),
    definition: entry?.definition,
    result: await entry?.execute(args as never, { signal: new AbortController().signal } as never),
  };
}

Object.assign(window, { toolwireTools: tools, endpointView });
(document.getElementById('status') as HTMLElement).textContent = 'ready';
