// The top of e2e/catalog-burst.e2e.ts: one tool of its own, the endpoint connected to the host
// named in the fragment (`#toolwire=<ws URL>`), and one child frame (`?frame=same|cross`) that
// registers tools when the test tells it to.
import { connect } from '../../../packages/endpoint/src/index.js';
import { install } from '../../../packages/polyfill/src/index.js';

const params = new URL(location.href).searchParams;
const fragment = new URLSearchParams(location.hash.slice(1));
const { toolManager } = install();
const w = window as any;

await toolManager.register({
  name: 'top.own',
  naturalLanguageProperties: {
    description: "The top's own tool.",
    annotations: { readOnlyHint: true },
  },
  execute: () => 'top',
});

const frameUrl = new URL('/e2e/pages/burst/frame.html', location.href);
if (params.get('frame') === 'cross') {
  frameUrl.hostname = frameUrl.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
}
const iframe = document.createElement('iframe');
iframe.id = 'child';
iframe.setAttribute('allow', 'tools *');
iframe.src = frameUrl.href;
document.body.append(iframe);

const session = connect({
  url: fragment.get('toolwire') ?? '',
  guard: 'full-access',
  reconnect: { initialDelayMs: 50, maxDelayMs: 400 },
});
w.session = session;
/** The ids the page's bridge serves now, sorted. */
w.catalogIds = () => session.catalogTools.map((tool) => tool.definition.id).sort();
