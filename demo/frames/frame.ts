/**
 * One frame of the frames demo. Its role comes from the URL (`?id=r3&a=ORIGIN_A&b=ORIGIN_B`);
 * scenarios.ts says what it registers and which frame, if any, it embeds. It installs the
 * polyfill, registers its tools, embeds its own child (a grandchild of the top) with the exact
 * `allow` attribute, and reports its registrations to the top page.
 */
import { install } from '../../packages/polyfill/src/index.js';
import type { FrameStatusMessage } from './messages.js';
import { FRAME_STATUS } from './messages.js';
import { registerTools } from './register.js';
import type { DemoOrigins, FrameSpec } from './scenarios.js';
import { childrenOf, exposedToOf, frameById, frameUrl, originsFromQuery } from './scenarios.js';

interface PolicyApi {
  allowsFeature(feature: string): boolean;
  features?(): string[];
}

/** What the browser's own Permissions Policy API says about `tools` here, if it knows it. */
function nativePolicy(): string {
  const doc = document as unknown as { permissionsPolicy?: PolicyApi; featurePolicy?: PolicyApi };
  const policy = doc.permissionsPolicy ?? doc.featurePolicy;
  if (!policy?.features?.().includes('tools')) return 'tools policy: emulated';
  return `tools policy: ${policy.allowsFeature('tools') ? 'allowed' : 'refused'} (native)`;
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

async function main(frame: FrameSpec, origins: DemoOrigins): Promise<void> {
  document.body.classList.add(`origin-${frame.origin.toLowerCase()}`);
  document.title = `toolwire frame ${frame.id}`;
  const installation = install();
  const results = await registerTools(installation, frame, origins);

  const header = element('div', 'frame-head');
  header.append(
    element('b', '', frame.id),
    ` ${frame.label} · `,
    element('span', `chip chip-${frame.origin.toLowerCase()}`, frame.origin),
    ` ${location.host}`,
  );
  const list = element('ul', 'frame-tools');
  for (const tool of frame.tools) {
    const result = results.find((entry) => entry.name === tool.name);
    const exposedTo = exposedToOf(tool.exposure, origins)?.map((origin) =>
      origin === origins.A ? 'A' : origin.replace(/^https?:\/\//, ''),
    );
    const item = element('li', result?.ok ? 'ok' : 'failed');
    item.title = result?.error ?? 'registered';
    item.append(
      `${result?.ok ? '✓' : '✗'} `,
      element('code', '', tool.name),
      ` ${exposedTo ? `→ ${exposedTo.join(' ')}` : 'same-origin'}${tool.agent ? ' · agent' : ''}`,
    );
    list.append(item);
  }
  document.body.append(header, list, element('div', 'frame-policy', nativePolicy()));

  for (const child of childrenOf(frame.id)) {
    const iframe = element('iframe', 'grandchild');
    if (child.allow !== null) iframe.setAttribute('allow', child.allow);
    iframe.src = frameUrl(child, origins);
    iframe.title = `frame ${child.id}`;
    document.body.append(element('div', 'frame-embed', `<iframe allow="${child.allow ?? ''}">`));
    document.body.append(iframe);
  }

  // The report goes to the top page only, pinned to its origin (docs/style.md 2: never '*').
  if (window.top && window.top !== window) {
    const message: FrameStatusMessage = {
      type: FRAME_STATUS,
      id: frame.id,
      origin: location.origin,
      results,
    };
    window.top.postMessage(message, origins.A);
  }
}

const frame = frameById(new URLSearchParams(location.search).get('id') ?? '');
const origins = originsFromQuery(location.search);
if (!frame || !origins || frame.parent === null) {
  document.body.textContent =
    'toolwire frames demo: this page needs ?id=<frame id>&a=<origin>&b=<origin>.';
} else {
  void main(frame, origins);
}
