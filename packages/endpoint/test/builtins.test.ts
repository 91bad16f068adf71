// @vitest-environment happy-dom

import type { BridgeTool, ToolBridge, ToolContext } from '@toolwire/protocol';
import { createToolBridge, decodePayload, noProgress } from '@toolwire/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { BuiltinTools, CaptureProvider } from '../src/builtins/index.js';
import { createBuiltinTools } from '../src/builtins/index.js';
import { pageValidator } from '../src/validator.js';

/** A small page with one of everything the built-in tools describe. */
const PAGE = `
<header><h1>Shop</h1><nav><a href="/home">Home</a> <a href="/cart" data-testid="cart-link">Cart</a></nav></header>
<main>
  <form id="signup" aria-label="Sign up">
    <label for="name">Name</label><input id="name" data-testid="name-input" placeholder="Your name">
    <label>Email <input id="email" type="email"></label>
    <input id="phone" type="tel" aria-label="Phone" readonly value="555">
    <input id="secret-pass" type="password" aria-label="Password" value="hunter2">
    <label for="country">Country</label>
    <select id="country">
      <option value="">Choose</option><option value="fr">France</option>
      <option value="de">Germany</option><option value="xx" disabled>Nowhere</option>
    </select>
    <select id="tags" multiple aria-label="Tags">
      <option value="a">Alpha</option><option value="b">Beta</option><option value="c">Gamma</option>
    </select>
    <label><input id="terms" type="checkbox"> I agree</label>
    <input type="radio" name="plan" id="free" aria-label="Free" checked>
    <input type="radio" name="plan" id="pro" aria-label="Pro">
    <textarea id="bio" aria-label="Bio"></textarea>
    <div contenteditable="true" id="notes" aria-label="Notes"></div>
    <button type="submit" id="save" title="Save the form"><span>Save</span></button>
    <button type="button" id="locked" disabled>Locked</button>
    <fieldset disabled><legend>Old</legend><input id="old" aria-label="Old field"></fieldset>
  </form>
  <div class="wrapper"><div><p id="para">Plain <b>bold</b></p></div></div>
  <div hidden id="secret">Secret</div>
  <div style="display:none" id="gone"><button id="gone-button">Gone</button></div>
  <div aria-hidden="true"><button id="aria-hidden-button">X</button></div>
  <ul id="list"><li>One</li><li>Two</li></ul>
  <img alt="Logo" id="logo"><img alt="" id="spacer">
  <div role="checkbox" aria-checked="false" tabindex="0" id="custom-check">Custom</div>
</main>
<footer>Footer text</footer>
<script>var notContent = 1;</script>
`;

interface Harness {
  builtins: BuiltinTools;
  tool(id: string): BridgeTool;
  /** Runs a tool's execute directly (no schema checks). */
  run(id: string, args?: Record<string, unknown>): Promise<any>;
  bridge: ToolBridge;
  /** tool.call through a real createToolBridge ('full-access'): the decoded response payload. */
  call(toolId: string, args?: unknown, extra?: Record<string, unknown>): Promise<any>;
  /** The response type and payload of any request. */
  send(type: string, payload: unknown): Promise<{ type: string; payload: any }>;
}

let sequence = 0;

function setUp(html = PAGE, captureProvider?: CaptureProvider): Harness {
  document.title = 'Test page';
  document.body.innerHTML = html;
  const builtins = createBuiltinTools({
    document,
    ...(captureProvider ? { captureProvider } : {}),
  });
  const bridge = createToolBridge({
    validator: pageValidator(),
    tools: () => builtins.tools,
    guard: 'full-access',
    onToolError: (error) => {
      throw error;
    },
  });
  const tool = (id: string): BridgeTool => {
    const found = builtins.tools.find((candidate) => candidate.definition.id === id);
    if (!found) throw new Error(`no tool ${id}`);
    return found;
  };
  const context = (toolId: string): ToolContext => ({
    requestId: 'direct',
    sessionId: null,
    callId: null,
    toolId,
    signal: new AbortController().signal,
    reportProgress: noProgress,
  });
  const send = async (type: string, payload: unknown) => {
    const response = await bridge.handle({
      type,
      id: `req-${++sequence}`,
      sessionId: 's1',
      sentAt: new Date().toISOString(),
      capability: 'tool.exec',
      payload,
    });
    if (!response) throw new Error('the bridge passed the request through');
    return { type: response.type, payload: decodePayload(response.envelope.payload) as any };
  };
  return {
    builtins,
    tool,
    run: async (id, args = {}) => tool(id).execute(args, context(id)),
    bridge,
    send,
    call: async (toolId, args = {}, extra = {}) =>
      (await send('tool.call', { toolId, arguments: args, ...extra })).payload,
  };
}

/** Every node of a visual tree, depth-first. */
function nodesOf(root: any): any[] {
  return [root, ...(root.children ?? []).flatMap(nodesOf)];
}

/** Records the types of the given events reaching `target`, in order. */
function recordEvents(target: EventTarget, types: string[]): string[] {
  const seen: string[] = [];
  for (const type of types) target.addEventListener(type, () => seen.push(type));
  return seen;
}

function byId<T extends Element = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`no #${id}`);
  return element as unknown as T;
}

let harness: Harness;
afterEach(() => harness?.builtins.dispose());

function find(root: any, predicate: (node: any) => boolean): any {
  const found = nodesOf(root).find(predicate);
  if (!found) throw new Error('node not found');
  return found;
}

async function referenceTo(id: string): Promise<any> {
  const result = await harness.run('ui.query_nodes', { selector: `#${id}` });
  expect(result.count).toBe(1);
  return result.nodes[0].reference;
}

describe('ui.get_visual_tree', () => {
  it('reduces the page to its accessible nodes with roles, names, automation ids and states', async () => {
    harness = setUp();
    const tree = await harness.run('ui.get_visual_tree');
    expect(tree.snapshotId).toMatch(/^web:\d+:[0-9a-f]{8}$/);
    expect(tree.snapshotId.split(':')[1]).toBe(String(tree.revision));
    expect(tree.truncated).toBe(false);
    const all = nodesOf(tree.root);
    expect(tree.nodeCount).toBe(all.length);
    expect(new Set(all.map((node) => node.nodeId)).size).toBe(all.length);
    for (const node of all) {
      expect(node.nodeId).toMatch(/^n\d+$/);
      expect(node.visible).toBe(true);
      expect(node.bounds).toEqual({ x: 0, y: 0, width: 0, height: 0 });
      // Empty fields are omitted, never sent empty.
      for (const key of ['name', 'text', 'value', 'automationId'])
        if (key in node) expect(node[key]).not.toBe('');
      if ('children' in node) expect(node.children.length).toBeGreaterThan(0);
    }
    expect(tree.root).toMatchObject({ role: 'document', name: 'Test page' });
    expect(tree.root.children.map((node: any) => node.role)).toEqual([
      'banner',
      'main',
      'contentinfo',
    ]);
    const banner = tree.root.children[0];
    expect(banner.children[0]).toMatchObject({ role: 'heading', name: 'Shop' });
    expect(banner.children[1]).toMatchObject({ role: 'navigation' });
    expect(banner.children[1].children).toEqual([
      expect.objectContaining({ role: 'link', name: 'Home' }),
      expect.objectContaining({ role: 'link', name: 'Cart', automationId: 'cart-link' }),
    ]);
    const form = find(tree.root, (node) => node.role === 'form');
    expect(form).toMatchObject({ name: 'Sign up', automationId: 'signup' });
    expect(find(form, (node) => node.role === 'textbox' && node.name === 'Name')).toMatchObject({
      automationId: 'name-input', // data-testid wins over id
      enabled: true,
    });
    expect(find(form, (node) => node.automationId === 'email')).toMatchObject({
      role: 'textbox',
      name: 'Email',
    });
    expect(find(form, (node) => node.automationId === 'phone')).toMatchObject({
      name: 'Phone',
      value: '555',
    });
    // Secrets stay out of the tree.
    const password = find(form, (node) => node.automationId === 'secret-pass');
    expect(password.value).toBeUndefined();
    const country = find(form, (node) => node.automationId === 'country');
    expect(country).toMatchObject({ role: 'combobox', name: 'Country' });
    expect(country.value).toBeUndefined(); // the selected option's value is ''
    expect(country.children.map((node: any) => [node.role, node.name, node.enabled])).toEqual([
      ['option', 'Choose', true],
      ['option', 'France', true],
      ['option', 'Germany', true],
      ['option', 'Nowhere', false],
    ]);
    expect(country.children[0].selected).toBe(true);
    expect(find(form, (node) => node.automationId === 'tags').role).toBe('listbox');
    expect(find(form, (node) => node.automationId === 'terms')).toMatchObject({
      role: 'checkbox',
      name: 'I agree',
      checked: false,
    });
    expect(find(form, (node) => node.automationId === 'free')).toMatchObject({
      role: 'radio',
      checked: true,
    });
    expect(find(form, (node) => node.automationId === 'notes')).toMatchObject({
      role: 'textbox',
      name: 'Notes',
    });
    // Content names a button before its title; the <span> inside is not repeated.
    const save = find(form, (node) => node.automationId === 'save');
    expect(save).toMatchObject({ role: 'button', name: 'Save' });
    expect(save.children).toBeUndefined();
    expect(find(form, (node) => node.automationId === 'locked').enabled).toBe(false);
    expect(find(form, (node) => node.automationId === 'old').enabled).toBe(false);
    // Wrappers collapse: the paragraph sits directly under main.
    const main = tree.root.children[1];
    const paragraph = main.children.find((node: any) => node.role === 'paragraph');
    expect(paragraph).toMatchObject({ automationId: 'para', text: 'Plain' });
    expect(paragraph.children).toEqual([
      expect.objectContaining({ role: 'generic', text: 'bold' }),
    ]);
    expect(find(main, (node) => node.automationId === 'list').children).toEqual([
      expect.objectContaining({ role: 'listitem', text: 'One' }),
      expect.objectContaining({ role: 'listitem', text: 'Two' }),
    ]);
    expect(find(main, (node) => node.automationId === 'logo')).toMatchObject({
      role: 'img',
      name: 'Logo',
    });
    expect(find(main, (node) => node.automationId === 'spacer').role).toBe('presentation');
    expect(find(main, (node) => node.automationId === 'custom-check')).toMatchObject({
      role: 'checkbox',
      name: 'Custom',
      checked: false,
    });
    expect(tree.root.children[2]).toMatchObject({ role: 'contentinfo', text: 'Footer text' });
    // Hidden, aria-hidden and non-content elements are skipped.
    const ids = all.map((node) => node.automationId);
    for (const hidden of ['secret', 'gone', 'gone-button', 'aria-hidden-button'])
      expect(ids).not.toContain(hidden);
    expect(JSON.stringify(tree)).not.toContain('notContent');
  });

  it('keeps node ids stable and hands new elements new ids', async () => {
    harness = setUp();
    const first = await harness.run('ui.get_visual_tree');
    const again = await harness.run('ui.get_visual_tree');
    expect(again).toEqual(first);
    const idOf = (tree: any, automationId: string) =>
      find(tree.root, (node) => node.automationId === automationId).nodeId;
    const before = idOf(first, 'save');
    const added = document.createElement('button');
    added.id = 'added';
    added.textContent = 'Added';
    byId('signup').prepend(added);
    const after = await harness.run('ui.get_visual_tree');
    expect(idOf(after, 'save')).toBe(before);
    const addedId = Number(idOf(after, 'added').slice(1));
    const highest = Math.max(...nodesOf(first.root).map((node) => Number(node.nodeId.slice(1))));
    expect(addedId).toBeGreaterThan(highest);
    expect(after.revision).toBeGreaterThan(first.revision);
    expect(after.snapshotId).not.toBe(first.snapshotId);
    // A removed and re-added element keeps its id: ids name elements, not positions.
    const save = byId('save');
    save.remove();
    byId('signup').append(save);
    expect(idOf(await harness.run('ui.get_visual_tree'), 'save')).toBe(before);
  });

  it('moves the revision on every kind of mutation and on input events, and only then', async () => {
    harness = setUp();
    const revision = async () => (await harness.run('ui.get_visual_tree')).revision as number;
    let last = await revision();
    expect(await revision()).toBe(last);
    const steps: Array<[string, () => void]> = [
      ['attribute', () => byId('save').setAttribute('data-state', 'busy')],
      ['childList', () => byId('list').append(document.createElement('li'))],
      ['characterData', () => ((byId('para').firstChild as Text).data = 'Changed ')],
      ['input event', () => byId('name').dispatchEvent(new Event('input', { bubbles: true }))],
      ['change event', () => byId('terms').dispatchEvent(new Event('change', { bubbles: true }))],
    ];
    for (const [what, step] of steps) {
      step();
      const next = await revision();
      expect(next, what).toBeGreaterThan(last);
      last = next;
    }
    // Delivered asynchronously or flushed on read: one bump either way, never lost.
    byId('save').setAttribute('data-state', 'idle');
    await Promise.resolve();
    expect(await revision()).toBe(last + 1);
  });

  it('bounds depth and node count breadth-first, and reports truncation', async () => {
    harness = setUp();
    const full = await harness.run('ui.get_visual_tree');
    const rootOnly = await harness.run('ui.get_visual_tree', { maxDepth: 1 });
    expect(rootOnly).toMatchObject({ nodeCount: 1, truncated: true });
    expect(rootOnly.root.children).toBeUndefined();
    expect(rootOnly.snapshotId).toBe(full.snapshotId);
    const twoLevels = await harness.run('ui.get_visual_tree', { maxDepth: 2 });
    expect(twoLevels.nodeCount).toBe(4);
    expect(twoLevels.root.children.every((node: any) => node.children === undefined)).toBe(true);
    const few = await harness.run('ui.get_visual_tree', { maxNodes: 5 });
    expect(few).toMatchObject({ nodeCount: 5, truncated: true });
    // Breadth first: the three landmarks come before anything deeper.
    expect(few.root.children.map((node: any) => node.role)).toEqual([
      'banner',
      'main',
      'contentinfo',
    ]);
    const exact = await harness.run('ui.get_visual_tree', { maxNodes: full.nodeCount });
    expect(exact.truncated).toBe(false);
  });

  it('starts at rootNodeId, includes hidden nodes on request, and fails stale roots', async () => {
    harness = setUp();
    const full = await harness.run('ui.get_visual_tree');
    const list = find(full.root, (node) => node.automationId === 'list');
    const sub = await harness.run('ui.get_visual_tree', { rootNodeId: list.nodeId });
    expect(sub.root).toEqual(list);
    expect(sub.snapshotId).toBe(full.snapshotId);
    const withHidden = await harness.run('ui.get_visual_tree', { includeHidden: true });
    const hidden = nodesOf(withHidden.root).filter((node) => !node.visible);
    expect(hidden.map((node) => node.automationId ?? node.text)).toEqual(
      expect.arrayContaining(['secret', 'gone', 'gone-button', 'aria-hidden-button']),
    );
    // Hidden nodes never change the snapshot id: it covers the default tree only.
    expect(withHidden.snapshotId).toBe(full.snapshotId);
    byId('list').remove();
    const stale = await harness.call('ui.get_visual_tree', { rootNodeId: list.nodeId });
    expect(stale).toMatchObject({
      code: 'stale_node_reference',
      details: { refreshWith: 'ui.query_nodes', nodeId: list.nodeId },
    });
  });

  it('fits the deepest trees in the JSON depth limit of the bridge', async () => {
    // 40 nested lists: 80 interesting levels below the document.
    let html = 'leaf';
    for (let level = 0; level < 40; level++) html = `<ul><li>${html}</li></ul>`;
    harness = setUp(html);
    const outcome = await harness.call('ui.get_visual_tree', { maxDepth: 64 });
    expect(outcome.success).toBe(true);
    expect(outcome.result.truncated).toBe(true);
    let levels = 0;
    for (let node = outcome.result.root; node; node = node.children?.[0]) levels++;
    expect(levels).toBe(63);
  });

  it('names nodes from aria-labelledby, aria-label, labels, alt, content, title and placeholder', async () => {
    harness = setUp(`
      <span id="first">First</span><span id="last" aria-label="Last">ignored</span>
      <input id="a" aria-labelledby="first last" aria-label="not used">
      <input id="b" title="Title B" placeholder="Placeholder B">
      <input id="c" placeholder="Placeholder C">
      <label for="d">Outer</label><label>Wrapping <input id="d"> text</label>
      <label>Country <select id="e"><option>France</option></select></label>
      <input id="f" type="submit"><input id="g" type="button" value="Go">
      <button id="h" title="Close dialog">X</button>
      <a id="i" href="/x" title="Title I"><img alt="Home icon"> Home</a>
      <fieldset id="j"><legend>Shipping</legend></fieldset>
      <table id="k"><caption>Prices</caption><tr><th>Item</th><td>Tea</td></tr></table>
      <nav id="l">Lots of navigation text</nav>
    `);
    const names = Object.fromEntries(
      nodesOf((await harness.run('ui.get_visual_tree')).root)
        .filter((node) => node.automationId?.length === 1)
        .map((node) => [node.automationId, node.name]),
    );
    expect(names).toEqual({
      a: 'First Last',
      b: 'Title B',
      c: 'Placeholder C',
      d: 'Outer Wrapping text',
      e: 'Country',
      f: 'Submit',
      g: 'Go',
      h: 'X',
      i: 'Home icon Home',
      j: 'Shipping',
      k: 'Prices',
      l: undefined,
    });
  });

  it('honours visibility: hidden and a child made visible again', async () => {
    harness = setUp(
      '<div style="visibility:hidden"><button id="a">A</button><button id="b" style="visibility:visible">B</button></div>',
    );
    const tree = await harness.run('ui.get_visual_tree');
    expect(nodesOf(tree.root).map((node) => node.automationId)).toEqual([undefined, 'b']);
  });
});

describe('ui.query_nodes', () => {
  it('finds nodes by automation id (data-testid or id), role, text and selector', async () => {
    harness = setUp();
    const byTestId = await harness.run('ui.query_nodes', { automationId: 'name-input' });
    expect(byTestId.nodes).toEqual([
      expect.objectContaining({ role: 'textbox', name: 'Name', automationId: 'name-input' }),
    ]);
    const byPlainId = await harness.run('ui.query_nodes', { automationId: 'name' });
    expect(byPlainId.nodes[0].reference).toEqual(byTestId.nodes[0].reference);
    expect(byTestId.nodes[0].reference).toEqual({
      source: 'web',
      snapshotId: byTestId.snapshotId,
      revision: byTestId.revision,
      nodeId: expect.stringMatching(/^n\d+$/),
    });
    const buttons = await harness.run('ui.query_nodes', { role: 'BUTTON' });
    expect(buttons.nodes.map((node: any) => node.name)).toEqual(['Save', 'Locked']);
    const byText = await harness.run('ui.query_nodes', { text: '  i   AGREE ' });
    // The wrapping label (own text) and the checkbox it names, in document order.
    expect(byText.nodes.map((node: any) => [node.role, node.automationId])).toEqual([
      ['generic', undefined],
      ['checkbox', 'terms'],
    ]);
    const byOwnText = await harness.run('ui.query_nodes', { text: 'footer' });
    expect(byOwnText.nodes).toEqual([expect.objectContaining({ role: 'contentinfo' })]);
    // A selector reaches elements the tree collapses, and skips non-content.
    const wrapper = await harness.run('ui.query_nodes', { selector: 'div.wrapper, script' });
    expect(wrapper.nodes).toEqual([
      expect.objectContaining({ role: 'generic', visible: true, enabled: true }),
    ]);
    const combined = await harness.run('ui.query_nodes', { role: 'link', text: 'cart' });
    expect(combined.nodes.map((node: any) => node.automationId)).toEqual(['cart-link']);
    const none = await harness.run('ui.query_nodes', { role: 'link', selector: 'button' });
    expect(none).toMatchObject({ count: 0, truncated: false, nodes: [] });
  });

  it('limits results in document order and leaves hidden nodes out unless asked', async () => {
    harness = setUp();
    const limited = await harness.run('ui.query_nodes', { role: 'option', limit: 2 });
    expect(limited).toMatchObject({ count: 2, truncated: true });
    expect(limited.nodes.map((node: any) => node.name)).toEqual(['Choose', 'France']);
    expect((await harness.run('ui.query_nodes', { automationId: 'gone-button' })).count).toBe(0);
    expect((await harness.run('ui.query_nodes', { selector: '#secret' })).count).toBe(0);
    const hidden = await harness.run('ui.query_nodes', {
      automationId: 'gone-button',
      includeHidden: true,
    });
    expect(hidden.nodes).toEqual([expect.objectContaining({ role: 'button', visible: false })]);
  });
});

describe('ui.perform_action', () => {
  it('setText sets the value through the native setter and fires input then change', async () => {
    harness = setUp();
    const input = byId<HTMLInputElement>('name');
    const events = recordEvents(input, ['focus', 'input', 'change']);
    // React-style value tracking on the instance: it must be bypassed, not called.
    let trackedWrites = 0;
    const proto = Object.getPrototypeOf(input);
    const native = Object.getOwnPropertyDescriptor(proto, 'value') as PropertyDescriptor;
    Object.defineProperty(input, 'value', {
      configurable: true,
      get() {
        return native.get?.call(this);
      },
      set(value: string) {
        trackedWrites++;
        native.set?.call(this, value);
      },
    });
    let inputEvent: InputEvent | undefined;
    input.addEventListener('input', (event) => {
      inputEvent = event as InputEvent;
    });
    const result = await harness.run('ui.perform_action', {
      reference: await referenceTo('name'),
      action: 'setText',
      text: 'Ada Lovelace',
    });
    expect(input.value).toBe('Ada Lovelace');
    expect(trackedWrites).toBe(0);
    expect(events).toEqual(['focus', 'input', 'change']);
    expect(inputEvent?.bubbles).toBe(true);
    expect(inputEvent?.inputType).toBe('insertText');
    expect(inputEvent?.data).toBe('Ada Lovelace');
    expect(document.activeElement).toBe(input);
    expect(result).toMatchObject({ performed: 'setText', value: 'Ada Lovelace' });
    expect(result.snapshotId).toMatch(new RegExp(`^web:${result.revision}:`));
    // The result describes the snapshot after the action.
    const tree = await harness.run('ui.get_visual_tree');
    expect(result.snapshotId).toBe(tree.snapshotId);
    expect(find(tree.root, (node) => node.automationId === 'name-input').value).toBe(
      'Ada Lovelace',
    );
  });

  it('clear empties textboxes and textareas; setText edits contenteditable', async () => {
    harness = setUp();
    const bio = byId<HTMLTextAreaElement>('bio');
    bio.value = 'old';
    const events = recordEvents(bio, ['input', 'change']);
    const cleared = await harness.run('ui.perform_action', {
      reference: await referenceTo('bio'),
      action: 'clear',
    });
    expect(bio.value).toBe('');
    expect(events).toEqual(['input', 'change']);
    expect(cleared).toMatchObject({ performed: 'clear', value: '' });
    const notes = byId('notes');
    const noteEvents = recordEvents(notes, ['input', 'change']);
    await harness.run('ui.perform_action', {
      reference: await referenceTo('notes'),
      action: 'setText',
      text: 'Remember',
    });
    expect(notes.textContent).toBe('Remember');
    expect(noteEvents).toEqual(['input']);
  });

  it('tap dispatches the pointer and mouse sequence, focuses, and activates', async () => {
    harness = setUp();
    const save = byId('save');
    const sequence = recordEvents(save, [
      'pointerdown',
      'mousedown',
      'focus',
      'pointerup',
      'mouseup',
      'click',
    ]);
    let submits = 0;
    byId('signup').addEventListener('submit', (event) => {
      event.preventDefault();
      submits++;
    });
    const result = await harness.run('ui.perform_action', {
      reference: await referenceTo('save'),
      action: 'tap',
    });
    expect(sequence).toEqual([
      'pointerdown',
      'mousedown',
      'focus',
      'pointerup',
      'mouseup',
      'click',
    ]);
    expect(document.activeElement).toBe(save);
    expect(submits).toBe(1);
    expect(result).toMatchObject({ performed: 'tap' });
    expect(result.value).toBeUndefined();
  });

  it('select picks options by value or label and fires change only when the selection changes', async () => {
    harness = setUp();
    const country = byId<HTMLSelectElement>('country');
    const events = recordEvents(country, ['input', 'change']);
    const reference = await referenceTo('country');
    const byValue = await harness.run('ui.perform_action', {
      reference,
      action: 'select',
      value: 'de',
    });
    expect(country.value).toBe('de');
    expect(byValue).toMatchObject({ performed: 'select', value: 'de' });
    await harness.run('ui.perform_action', { reference, action: 'select', value: 'france' });
    expect(country.value).toBe('fr');
    expect(events).toEqual(['input', 'change', 'input', 'change']);
    const same = await harness.call('ui.perform_action', {
      reference,
      action: 'select',
      value: 'France',
    });
    expect(same.message).toMatch(/already made/);
    expect(events).toHaveLength(4);
    const tags = byId<HTMLSelectElement>('tags');
    await harness.run('ui.perform_action', {
      reference: await referenceTo('tags'),
      action: 'select',
      value: ['a', 'Gamma'],
    });
    expect(
      Array.from(tags.options)
        .filter((option) => option.selected)
        .map((option) => option.value),
    ).toEqual(['a', 'c']);
    const missing = await harness.call('ui.perform_action', {
      reference,
      action: 'select',
      value: 'Atlantis',
    });
    expect(missing).toMatchObject({ code: 'option_not_found', details: { value: 'Atlantis' } });
    expect(missing.details.options).toContainEqual({ value: 'fr', label: 'France' });
    expect(
      await harness.call('ui.perform_action', { reference, action: 'select', value: 'xx' }),
    ).toMatchObject({ code: 'node_disabled' });
    expect(
      await harness.call('ui.perform_action', { reference, action: 'select', value: ['fr', 'de'] }),
    ).toMatchObject({ code: 'tool_arguments_schema_invalid' });
  });

  it('check clicks only when the state differs', async () => {
    harness = setUp();
    const terms = byId<HTMLInputElement>('terms');
    const events = recordEvents(terms, ['click', 'input', 'change']);
    const reference = await referenceTo('terms');
    const checked = await harness.run('ui.perform_action', { reference, action: 'check' });
    expect(terms.checked).toBe(true);
    expect(checked).toMatchObject({ performed: 'check', checked: true });
    expect(events.filter((type) => type === 'click')).toHaveLength(1);
    expect(events.filter((type) => type === 'change')).toHaveLength(1);
    const again = await harness.call('ui.perform_action', { reference, action: 'check' });
    expect(again).toMatchObject({ success: true, message: expect.stringMatching(/Already/) });
    expect(events.filter((type) => type === 'click')).toHaveLength(1);
    await harness.run('ui.perform_action', { reference, action: 'check', checked: false });
    expect(terms.checked).toBe(false);
    // A radio is checked by clicking it, never unchecked directly.
    const pro = await referenceTo('pro');
    await harness.run('ui.perform_action', { reference: pro, action: 'check' });
    expect(byId<HTMLInputElement>('pro').checked).toBe(true);
    expect(byId<HTMLInputElement>('free').checked).toBe(false);
    expect(
      await harness.call('ui.perform_action', { reference: pro, action: 'check', checked: false }),
    ).toMatchObject({ code: 'action_not_supported' });
    // A custom ARIA checkbox is clicked; the page's handler flips aria-checked.
    const custom = byId('custom-check');
    custom.addEventListener('click', () =>
      custom.setAttribute('aria-checked', String(custom.getAttribute('aria-checked') !== 'true')),
    );
    const customResult = await harness.run('ui.perform_action', {
      reference: await referenceTo('custom-check'),
      action: 'check',
    });
    expect(customResult.checked).toBe(true);
  });

  it('focus and scrollIntoView', async () => {
    harness = setUp();
    await harness.run('ui.perform_action', {
      reference: await referenceTo('bio'),
      action: 'focus',
    });
    expect(document.activeElement).toBe(byId('bio'));
    const scrolled: unknown[] = [];
    byId('locked').scrollIntoView = (options?: unknown) => {
      scrolled.push(options);
    };
    // Scrolling is not an interaction: a disabled node may be scrolled to.
    const result = await harness.run('ui.perform_action', {
      reference: await referenceTo('locked'),
      action: 'scrollIntoView',
    });
    expect(result.performed).toBe('scrollIntoView');
    expect(scrolled).toEqual([{ block: 'center', inline: 'nearest' }]);
  });

  it('refuses stale references, with refreshWith, but not older revisions of live nodes', async () => {
    harness = setUp();
    const reference = await referenceTo('name');
    // The DOM changes elsewhere: the revision moves, the reference still holds.
    byId('list').append(document.createElement('li'));
    byId('signup').append(byId('name')); // even moved
    const still = await harness.call('ui.perform_action', {
      reference,
      action: 'setText',
      text: 'x',
    });
    expect(still.success).toBe(true);
    expect(still.result.revision).toBeGreaterThan(reference.revision);
    byId('name').remove();
    const stale = await harness.call('ui.perform_action', { reference, action: 'tap' });
    expect(stale).toEqual({
      code: 'stale_node_reference',
      message: expect.stringContaining('ui.query_nodes'),
      retryable: false,
      details: { refreshWith: 'ui.query_nodes', nodeId: reference.nodeId },
    });
    const never = await harness.call('ui.perform_action', {
      reference: { ...reference, nodeId: 'n99999' },
      action: 'tap',
    });
    expect(never.code).toBe('stale_node_reference');
    // A revision this page never reached comes from an earlier load of the page.
    const future = await harness.call('ui.perform_action', {
      reference: { ...(await referenceTo('save')), revision: 1_000_000 },
      action: 'tap',
    });
    expect(future.code).toBe('stale_node_reference');
  });

  it('refuses disabled nodes and actions the element does not support', async () => {
    harness = setUp();
    for (const id of ['locked', 'old']) {
      const refused = await harness.call('ui.perform_action', {
        reference: await referenceTo(id),
        action: 'tap',
      });
      expect(refused, id).toMatchObject({ code: 'node_disabled', retryable: false });
    }
    const cases: Array<[string, Record<string, unknown>]> = [
      ['save', { action: 'setText', text: 'x' }],
      ['terms', { action: 'clear' }],
      ['phone', { action: 'setText', text: '1' }], // read-only
      ['name', { action: 'select', value: 'x' }],
      ['save', { action: 'check' }],
      ['list', { action: 'focus' }],
    ];
    for (const [id, args] of cases) {
      const refused = await harness.call('ui.perform_action', {
        reference: await referenceTo(id),
        ...args,
      });
      expect(refused, `${id} ${args.action}`).toMatchObject({ code: 'action_not_supported' });
    }
  });
});

describe('through createToolBridge', () => {
  it('lists the four tools with precise, closed schemas', async () => {
    harness = setUp();
    const { type, payload } = await harness.send('tool.query', {});
    expect(type).toBe('tool.catalog');
    const tools = Object.fromEntries(payload.tools.map((tool: any) => [tool.id, tool]));
    expect(Object.keys(tools).sort()).toEqual([
      'ui.get_screenshot',
      'ui.get_visual_tree',
      'ui.perform_action',
      'ui.query_nodes',
    ]);
    for (const tool of Object.values<any>(tools)) {
      expect(tool.category).toBe('ui');
      expect(tool.description).toMatch(/^[A-Z][^.]*(\.[a-z_][^.]*)*\.$/); // one sentence
      expect(tool.keywords.length).toBeGreaterThan(0);
      expect(tool.argumentsSchema.additionalProperties).toBe(false);
      expect(tool.resultSchema.additionalProperties).toBe(false);
    }
    expect(tools['ui.perform_action'].policy).toBe('write');
    expect(tools['ui.perform_action'].prerequisiteToolIds).toEqual(['ui.query_nodes']);
    for (const id of ['ui.get_visual_tree', 'ui.query_nodes', 'ui.get_screenshot'])
      expect(tools[id].policy).toBe('read');
    expect(tools['ui.get_screenshot'].runtime).toEqual({
      available: false,
      code: 'screenshot_unavailable',
      reason: 'No capture provider is registered on this page.',
      remediation:
        'Call connect({captureProvider}) with a function that captures the page (for example with an extension or getDisplayMedia).',
    });
  });

  it('validates results against the result schemas: tree, query and action', async () => {
    harness = setUp();
    const tree = await harness.call('ui.get_visual_tree', { maxDepth: 64, includeHidden: true });
    expect(tree).toMatchObject({ toolId: 'ui.get_visual_tree', success: true });
    const query = await harness.call('ui.query_nodes', { automationId: 'name-input' });
    expect(query.success).toBe(true);
    const [node] = query.result.nodes;
    const action = await harness.call('ui.perform_action', {
      reference: node.reference,
      action: 'setText',
      text: 'Grace',
    });
    expect(action).toMatchObject({
      success: true,
      result: { performed: 'setText', nodeId: node.reference.nodeId, value: 'Grace' },
    });
  });

  it('rejects arguments the schemas do not allow', async () => {
    harness = setUp();
    const reference = (await harness.run('ui.query_nodes', { automationId: 'save' })).nodes[0]
      .reference;
    const bad: Array<[string, unknown]> = [
      ['ui.query_nodes', {}],
      ['ui.query_nodes', { limit: 5 }],
      ['ui.query_nodes', { role: 'button', limit: 201 }],
      ['ui.query_nodes', { role: 'button', extra: true }],
      ['ui.get_visual_tree', { maxDepth: 0 }],
      ['ui.get_visual_tree', { maxNodes: 5001 }],
      ['ui.get_visual_tree', { rootNodeId: 'body' }],
      ['ui.perform_action', { reference, action: 'hover' }],
      ['ui.perform_action', { reference, action: 'setText' }],
      ['ui.perform_action', { reference, action: 'select' }],
      ['ui.perform_action', { reference: { ...reference, source: 'native' }, action: 'tap' }],
      ['ui.perform_action', { reference: { nodeId: reference.nodeId }, action: 'tap' }],
      ['ui.get_screenshot', { format: 'gif' }],
    ];
    for (const [toolId, args] of bad) {
      const error = await harness.call(toolId, args);
      // The screenshot tool is unavailable first: availability is checked before arguments.
      const expected =
        toolId === 'ui.get_screenshot' ? 'screenshot_unavailable' : 'tool_arguments_schema_invalid';
      expect(error.code, `${toolId} ${JSON.stringify(args)}`).toBe(expected);
    }
  });

  it('reports an invalid selector as invalid_selector', async () => {
    harness = setUp();
    const error = await harness.call('ui.query_nodes', { selector: 'div[[' });
    expect(error).toMatchObject({
      code: 'invalid_selector',
      retryable: false,
      details: { selector: 'div[[' },
    });
  });

  it('answers `after` evidence with the visual tree after the action', async () => {
    harness = setUp();
    byId('signup').addEventListener('submit', (event) => {
      event.preventDefault();
      const done = document.createElement('p');
      done.id = 'done';
      done.textContent = 'Thanks!';
      document.querySelector('main')?.append(done);
    });
    const { nodes } = await harness.run('ui.query_nodes', { role: 'button', text: 'save' });
    const outcome = await harness.call(
      'ui.perform_action',
      { reference: nodes[0].reference, action: 'tap' },
      { after: { include: ['visualTree', 'screenshot'], visualTreeArguments: { maxNodes: 200 } } },
    );
    expect(outcome.success).toBe(true);
    const tree = outcome.evidence.visualTree;
    expect(tree).toMatchObject({ toolId: 'ui.get_visual_tree', success: true });
    expect(tree.result.snapshotId).toBe(outcome.result.snapshotId);
    expect(nodesOf(tree.result.root)).toContainEqual(
      expect.objectContaining({ role: 'paragraph', automationId: 'done', text: 'Thanks!' }),
    );
    expect(outcome.evidence.screenshot).toMatchObject({
      success: false,
      error: { code: 'screenshot_unavailable' },
    });
  });

  it('returns the capture provider result, and reports provider failures', async () => {
    const requests: unknown[] = [];
    let fail = false;
    harness = setUp(PAGE, {
      capture: async (args) => {
        requests.push(args);
        if (fail) throw new Error('tab hidden');
        return { mimeType: 'image/png', data: 'iVBORw0KGgo=', width: 640, height: 480 };
      },
    });
    const { payload } = await harness.send('tool.query', { ids: ['ui.get_screenshot'] });
    expect(payload.tools[0].runtime).toBeUndefined();
    const shot = await harness.call('ui.get_screenshot', { maxWidth: 320, format: 'jpeg' });
    expect(shot.result).toEqual({
      mimeType: 'image/png',
      data: 'iVBORw0KGgo=',
      width: 640,
      height: 480,
    });
    expect(requests).toEqual([{ maxWidth: 320, format: 'jpeg' }]);
    fail = true;
    expect(await harness.call('ui.get_screenshot')).toMatchObject({
      code: 'screenshot_failed',
      retryable: true,
    });
  });

  it('without a provider the call fails with the availability code and remediation', async () => {
    harness = setUp();
    const error = await harness.call('ui.get_screenshot');
    expect(error).toMatchObject({
      code: 'screenshot_unavailable',
      retryable: false,
      details: { available: false, remediation: expect.stringContaining('captureProvider') },
    });
    // A direct call (no bridge) says the same.
    expect(await harness.run('ui.get_screenshot')).toMatchObject({
      code: 'screenshot_unavailable',
    });
  });

  it('after dispose every tool is unavailable and the document is no longer observed', async () => {
    harness = setUp();
    const before = (await harness.run('ui.get_visual_tree')).revision;
    harness.builtins.dispose();
    byId('save').setAttribute('data-x', '1');
    const error = await harness.call('ui.get_visual_tree');
    expect(error).toMatchObject({ code: 'tool_unavailable' });
    expect((await harness.run('ui.get_visual_tree')).revision).toBe(before);
  });
});
