// A top page whose own code connects (host URL in `#toolwire=`), guard full-access, pushing
// catalog changes 10 s late, with a same-origin child frame that offers tools to it.
import { connect } from '../../../packages/endpoint/src/index.js';
import { install } from '../../../packages/polyfill/src/index.js';

install();
// The child is embedded once the polyfill is in place, as frames/scenario.ts does.
const iframe = document.createElement('iframe');
iframe.id = 'child';
iframe.title = 'child';
iframe.setAttribute('allow', 'tools');
iframe.src = './frame-child.html';
document.body.append(iframe);
const fragment = new URLSearchParams(location.hash.slice(1));
(window as any).session = connect({
  url: fragment.get('toolwire') ?? '',
  guard: 'full-access',
  builtins: false,
  reconnect: { initialDelayMs: 50, maxDelayMs: 400 },
  catalogChangedDelayMs: 10_000,
});
