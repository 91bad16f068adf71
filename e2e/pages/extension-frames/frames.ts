/**
 * The extension's frames test pages (e2e/extension-frames.e2e.ts): a top document and a
 * cross-origin frame (the other loopback name, `allow="tools"`), each registering tools through
 * `document.modelContext` as a WebMCP page does: toolwire's polyfill where the address has no
 * `?native` (else the browser's own WebMCP, no toolwire script at all). Every tool records
 * where it ran (`window.ran`) and answers with its document's origin. With the polyfill the
 * frame also registers one toolwire tool exposed to the top, which the top's `window.tools`
 * coalesces. `?hostile=URL` embeds a third frame (another origin) too.
 */
import { install } from '../../../packages/polyfill/src/index.js';

const params = new URLSearchParams(location.search);
const native = params.has('native');
const toolwire = native ? undefined : install();
const w = window as any;
w.ran = [];

function whereTool(name: string, description: string) {
  return {
    name,
    description,
    inputSchema: { type: 'object', properties: { note: { type: 'string' } } },
    annotations: { readOnlyHint: true },
    execute: (input: { note?: string }) => {
      w.ran.push(name);
      return { tool: name, ranIn: location.origin, note: input?.note ?? null };
    },
  };
}

function modelContext(): any {
  const context = (document as any).modelContext;
  if (!context) throw new Error('no document.modelContext here');
  return context;
}

export async function runTop(): Promise<void> {
  await modelContext().registerTool(whereTool('top.where', 'Says where it ran (top).'));
  await modelContext().registerTool(whereTool('shared.where', 'The same name in two frames.'));
  const other = new URL(location.href);
  other.hostname = other.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  const frame = document.createElement('iframe');
  frame.setAttribute('allow', 'tools');
  frame.id = 'frame';
  frame.src = `${other.origin}/e2e/pages/extension-frames/frame.html${location.search}#${encodeURIComponent(location.origin)}`;
  document.body.append(frame);
  const hostile = params.get('hostile');
  if (hostile) {
    const evil = document.createElement('iframe');
    evil.id = 'hostile';
    evil.src = hostile;
    document.body.append(evil);
  }
  w.topReady = true;
}

export async function runFrame(): Promise<void> {
  const top = decodeURIComponent(location.hash.slice(1));
  await modelContext().registerTool(whereTool('frame.where', 'Says where it ran (frame).'));
  await modelContext().registerTool(whereTool('shared.where', 'The same name in two frames.'));
  // A toolwire tool the top's window.tools lists already (it coalesces): listed once.
  await toolwire?.toolManager.register({
    name: 'frame.coalesced',
    exposedTo: [top],
    naturalLanguageProperties: {
      description: 'A frame tool the top lists too.',
      annotations: { readOnlyHint: true },
    },
    execute: () => {
      w.ran.push('frame.coalesced');
      return { tool: 'frame.coalesced', ranIn: location.origin };
    },
  });
  w.frameReady = true;
}
