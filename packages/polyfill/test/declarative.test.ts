// @vitest-environment happy-dom
// Declarative (form) tools under happy-dom (issue 9): synthesis, discovery, execution.
// A submit that is not prevented would make happy-dom navigate, so the navigation outcome
// (result null) and real user clicks are covered in Chromium (e2e/declarative.e2e.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import { nextEvent } from './contract/assert.js';
import { enumOf, toolNamed, whenListed } from './contract/declarative-cases.js';
import { freshInstall, rejection } from './helpers.js';

type Setup = ReturnType<typeof freshInstall> & { mc: any; doc: Document };
let open: Setup[] = [];

afterEach(async () => {
  for (const setup of open) await setup.win.happyDOM.close();
  open = [];
});

function page(html: string): Setup {
  const setup = freshInstall('https://forms.example/');
  const doc = setup.win.document as unknown as Document;
  doc.body.innerHTML = html;
  const result = { ...setup, doc, mc: (doc as unknown as { modelContext: any }).modelContext };
  open.push(result);
  return result;
}

/** Records input/change events (target name, type) at the document. */
function recordEvents(setup: Setup): string[] {
  const log: string[] = [];
  for (const type of ['input', 'change'])
    setup.doc.addEventListener(type, (event) =>
      log.push(`${type}:${(event.target as HTMLInputElement).name}`),
    );
  return log;
}

/**
 * A barrier: a form added to the document now is listed only once the polyfill has handled
 * every mutation before it (one observer, records in order) and the work they queued.
 */
async function barrier(setup: Setup, name: string): Promise<void> {
  const box = setup.doc.createElement('div');
  box.innerHTML = `<form toolname="${name}" tooldescription="A barrier"></form>`;
  setup.doc.body.append(box);
  await toolNamed(setup, name);
}

/** The tool `name` once `mc.getTools()` lists it with `test` holding (waits on toolchange). */
const listedWith = (setup: Setup, name: string, test: (tool: any) => boolean) =>
  whenListed(setup, (tools) => tools.find((tool) => tool.name === name && test(tool)));

function respondOnSubmit(form: HTMLFormElement, value: unknown, seen: Event[] = []): Event[] {
  form.addEventListener('submit', (event) => {
    seen.push(event);
    event.preventDefault();
    (event as unknown as { respondWith(p: unknown): void }).respondWith(Promise.resolve(value));
  });
  return seen;
}

const ALL_CONTROLS = `
<form toolname="all" tooldescription="Every control" tooltitle="All">
  <input name="t" pattern="[a-z]+" minlength="2" maxlength="5" required
    toolparamtitle="Text" toolparamdescription="Lower-case letters">
  <input type="email" name="e"><input type="url" name="u"><input type="tel" name="tel">
  <input type="password" name="pw"><input type="search" name="s">
  <input type="number" name="n" min="1" max="9"><input type="number" name="n2" step="0.5">
  <input type="number" name="n3" step="any"><input type="range" name="r">
  <input type="checkbox" name="c">
  <input type="checkbox" name="multi" value="1"><input type="checkbox" name="multi" value="2">
  <input type="radio" name="rad" value="red" required><input type="radio" name="rad" value="blue">
  <select name="sel"><option value="a">Alpha</option><option value="b" disabled>Beta</option><option value="c">Gamma</option></select>
  <select name="selm" multiple><option value="x">X</option><option value="y">Y</option></select>
  <input type="date" name="d"><input type="time" name="tm"><input type="datetime-local" name="dl">
  <input type="month" name="mo"><input type="week" name="wk"><input type="color" name="col">
  <textarea name="ta" maxlength="50"></textarea>
  <input type="hidden" name="h"><input type="submit" name="sub"><input type="button" name="b">
  <input type="reset" name="rs"><input type="image" name="img" alt="x">
  <input name="dis" disabled><fieldset disabled><input name="infs"></fieldset>
  <input toolparamdescription="no name"><input name="t" value="second t is ignored">
  <input type="file" name="upload">
  <button type="submit">Go</button>
</form>`;

describe('declarative tools: schema synthesis', () => {
  it('maps every control type, skips what an agent cannot fill, refuses file inputs', async () => {
    const setup = page(ALL_CONTROLS);
    const tool = await toolNamed(setup, 'all');
    expect(tool.title).toBe('All');
    expect(tool.description).toBe('Every control');
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        t: {
          type: 'string',
          pattern: '^(?:[a-z]+)$',
          title: 'Text',
          description: 'Lower-case letters',
        },
        e: { type: 'string', format: 'email' },
        u: { type: 'string', format: 'uri' },
        tel: { type: 'string' },
        pw: { type: 'string' },
        s: { type: 'string' },
        n: { type: 'number', minimum: 1, maximum: 9, multipleOf: 1 },
        n2: { type: 'number', multipleOf: 0.5 },
        n3: { type: 'number' },
        r: { type: 'number', minimum: 0, maximum: 100, multipleOf: 1 },
        c: { type: 'boolean' },
        multi: { type: 'array', items: enumOf(['1', '2']), uniqueItems: true },
        rad: enumOf(['red', 'blue']),
        sel: enumOf(['a', 'c'], ['Alpha', 'Gamma']),
        selm: { type: 'array', items: enumOf(['x', 'y'], ['X', 'Y']), uniqueItems: true },
        d: { type: 'string', format: 'date' },
        tm: { type: 'string', pattern: expect.stringMatching(/^\^/) },
        dl: { type: 'string', pattern: expect.stringMatching(/T/) },
        mo: { type: 'string', pattern: '^[0-9]{4,}-(0[1-9]|1[0-2])$' },
        wk: { type: 'string', pattern: '^[0-9]{4,}-W(0[1-9]|[1-4][0-9]|5[0-3])$' },
        col: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' },
        ta: { type: 'string' },
      },
      required: ['t', 'rad'],
      description: expect.stringContaining('File inputs (upload) cannot be filled by an agent'),
    });
    const patterns = tool.inputSchema.properties;
    expect(new RegExp(patterns.tm.pattern).test('09:30')).toBe(true);
    expect(new RegExp(patterns.tm.pattern).test('24:00')).toBe(false);
    expect(new RegExp(patterns.dl.pattern).test('2026-11-30T09:30')).toBe(true);
    expect(new RegExp(patterns.dl.pattern).test('2026-11-30 09:30')).toBe(false);
  });

  it('a form without controls has an empty object schema; no file note without file inputs', async () => {
    const setup = page('<form toolname="empty" tooldescription="Nothing to fill"></form>');
    const tool = await toolNamed(setup, 'empty');
    expect(tool.inputSchema).toEqual({ type: 'object', properties: {}, required: [] });
    expect(tool.title).toBe('');
  });
});

describe('declarative tools: discovery', () => {
  it('registers in the shared registry: tools.getTools({agentOnly}) and modelContext list it', async () => {
    const setup = page('<form toolname="find" tooldescription="Finds"><input name="q"></form>');
    await toolNamed(setup, 'find');
    const listed = await setup.tools.getTools({ agentOnly: true });
    expect(listed.map((tool: { name: string }) => tool.name)).toEqual(['find']);
    expect(listed[0]?.agentExposed).toBe(true);
    await expect(
      setup.toolManager.register({ name: 'find', execute: () => 1 }),
    ).rejects.toMatchObject({ name: 'InvalidStateError' });
  });

  it('follows forms added, changed and removed later, with toolchange each time', async () => {
    const setup = page('<p>no forms yet</p>');
    let changes = 0;
    setup.mc.addEventListener('toolchange', () => changes++);
    const form = setup.doc.createElement('form');
    form.setAttribute('toolname', 'later');
    form.setAttribute('tooldescription', 'Added later');
    form.innerHTML = '<input name="a">';
    setup.doc.body.append(form);
    expect((await toolNamed(setup, 'later')).description).toBe('Added later');
    const afterAdd = changes;
    expect(afterAdd).toBeGreaterThanOrEqual(1);

    form.setAttribute('tooldescription', 'Changed');
    const changed = await listedWith(setup, 'later', (tool) => tool.description !== 'Added later');
    expect(changed.description).toBe('Changed');
    expect(changes).toBe(afterAdd + 1);

    form.setAttribute('tooltitle', 'Titled');
    expect((await listedWith(setup, 'later', (tool) => tool.title !== '')).title).toBe('Titled');
    // One toolchange each: none came late for the description either.
    expect(changes).toBe(afterAdd + 2);

    const input = setup.doc.createElement('input');
    input.name = 'b';
    input.required = true;
    form.append(input);
    const required = await listedWith(setup, 'later', (tool) => tool.inputSchema.required.length);
    expect(required.inputSchema.required).toEqual(['b']);

    form.setAttribute('toolname', 'renamed');
    await toolNamed(setup, 'renamed');
    await toolNamed(setup, 'later', true);

    form.removeAttribute('tooldescription');
    await toolNamed(setup, 'renamed', true);
    form.setAttribute('tooldescription', 'Back');
    await toolNamed(setup, 'renamed');
    form.remove();
    await toolNamed(setup, 'renamed', true);
  });

  it('finds forms in open shadow roots, present at install or attached later', async () => {
    const setup = page('<div id="host"></div>');
    const host = setup.doc.getElementById('host') as HTMLElement;
    const root = host.attachShadow({ mode: 'open' });
    root.innerHTML = '<form toolname="shadowed" tooldescription="In a shadow root"></form>';
    await toolNamed(setup, 'shadowed');
    const inner = root.querySelector('form') as HTMLFormElement;
    inner.setAttribute('tooldescription', 'Changed inside');
    const changed = await listedWith(
      setup,
      'shadowed',
      (tool) => tool.description !== 'In a shadow root',
    );
    expect(changed.description).toBe('Changed inside');
    inner.remove();
    await toolNamed(setup, 'shadowed', true);

    const late = setup.doc.createElement('div');
    late
      .attachShadow({ mode: 'open' })
      .append(Object.assign(setup.doc.createElement('form'), { innerHTML: '<input name="x">' }));
    const form = (late.shadowRoot as ShadowRoot).querySelector('form') as HTMLFormElement;
    form.setAttribute('toolname', 'late.shadow');
    form.setAttribute('tooldescription', 'Attached later');
    setup.doc.body.append(late);
    await toolNamed(setup, 'late.shadow');

    // A shadow root attached to an element already in the document, filled afterwards.
    const connected = setup.doc.createElement('section');
    setup.doc.body.append(connected);
    // Its arrival handled (no shadow root then), and then the attachment's own scan.
    await barrier(setup, 'barrier.one');
    const attached = connected.attachShadow({ mode: 'open' });
    await barrier(setup, 'barrier.two');
    attached.innerHTML =
      '<form toolname="attached.later" tooldescription="Attached in place"></form>';
    await toolNamed(setup, 'attached.later');
    // A closed root stays private.
    const closed = setup.doc.createElement('aside');
    setup.doc.body.append(closed);
    closed.attachShadow({ mode: 'closed' }).innerHTML =
      '<form toolname="closed.root" tooldescription="Private"></form>';
    await barrier(setup, 'barrier.three');
    expect((await setup.mc.getTools()).map((tool: { name: string }) => tool.name)).not.toContain(
      'closed.root',
    );
  });

  it('ignores forms of frameless documents until they are adopted', async () => {
    const setup = page('<p>host</p>');
    const html = '<form toolname="frameless" tooldescription="Not in a window"></form>';
    const other = setup.doc.implementation.createHTMLDocument('other');
    other.body.innerHTML = html;
    const parsed = new (setup.win as any).DOMParser().parseFromString(html, 'text/html');
    await barrier(setup, 'framed');
    expect((await setup.mc.getTools()).map((tool: { name: string }) => tool.name)).toEqual([
      'framed',
    ]);
    setup.doc.body.append(setup.doc.adoptNode(other.body.firstElementChild as Element));
    await toolNamed(setup, 'frameless');
    expect(parsed.querySelector('form')).not.toBeNull();
  });

  it('a taken name is skipped until it is free', async () => {
    const setup = page(`
      <form id="one" toolname="same" tooldescription="First"></form>
      <form id="two" toolname="same" tooldescription="Second"></form>`);
    expect((await toolNamed(setup, 'same')).description).toBe('First');
    setup.doc.getElementById('one')?.remove();
    const second = await listedWith(setup, 'same', (tool) => tool.description !== 'First');
    expect(second.description).toBe('Second');
  });
});

describe('declarative tools: execution', () => {
  const FORM = `
    <form id="f" toolname="fill" tooldescription="Fill me" toolautosubmit>
      <input name="t"><input type="number" name="n"><input type="checkbox" name="c">
      <input type="radio" name="r" value="a"><input type="radio" name="r" value="b">
      <select name="s"><option>x</option><option>y</option></select>
      <select name="m" multiple><option>p</option><option>q</option><option>r</option></select>
      <textarea name="ta"></textarea>
      <input type="checkbox" name="g" value="1"><input type="checkbox" name="g" value="2">
      <button type="submit" id="go">Go</button>
    </form>`;
  const INPUT = {
    t: 'text',
    n: 4,
    c: true,
    r: 'b',
    s: 'y',
    m: ['p', 'r'],
    ta: 'long',
    g: ['2'],
  };

  it('fills each control once with input and change, then fires toolactivated and submits', async () => {
    const setup = page(FORM);
    const form = setup.doc.getElementById('f') as HTMLFormElement;
    const tool = await toolNamed(setup, 'fill');
    const log = recordEvents(setup);
    const order: string[] = [];
    setup.mc.addEventListener('toolactivated', (event: any) => {
      order.push(
        `toolactivated:${event.toolName}:${(form.elements.namedItem('t') as HTMLInputElement).value}`,
      );
    });
    const seen = respondOnSubmit(form, { ok: true });
    form.addEventListener('submit', () => order.push('submit'));
    expect(await setup.mc.executeTool(tool, INPUT)).toBe('{"ok":true}');
    expect(log).toEqual([
      'input:t',
      'change:t',
      'input:n',
      'change:n',
      'input:c',
      'change:c',
      'input:r',
      'change:r',
      'input:s',
      'change:s',
      'input:m',
      'change:m',
      'input:ta',
      'change:ta',
      'input:g',
      'change:g',
    ]);
    expect(order).toEqual(['toolactivated:fill:text', 'submit']);
    expect((seen[0] as any).agentInvoked).toBe(true);
    const m = form.elements.namedItem('m') as HTMLSelectElement;
    expect([...m.selectedOptions].map((option) => option.value)).toEqual(['p', 'r']);

    // The same input again changes nothing, so no events at all.
    log.length = 0;
    expect(await setup.mc.executeTool(tool, INPUT)).toBe('{"ok":true}');
    expect(log).toEqual([]);
    // A different multiple selection: exactly one input and one change.
    expect(await setup.mc.executeTool(tool, { m: ['q'] })).toBe('{"ok":true}');
    expect(log).toEqual(['input:m', 'change:m']);
  });

  it('marks the form and its submit button active while the call runs', async () => {
    const setup = page(FORM);
    const form = setup.doc.getElementById('f') as HTMLFormElement;
    const button = setup.doc.getElementById('go') as HTMLButtonElement;
    const tool = await toolNamed(setup, 'fill');
    const submitted = latch<boolean[]>();
    const answer = latch<string>();
    form.addEventListener('submit', (event: any) => {
      submitted.open([
        form.hasAttribute('data-tool-form-active'),
        button.hasAttribute('data-tool-submit-active'),
      ]);
      event.preventDefault();
      event.respondWith(answer.wait);
    });
    const pending = setup.mc.executeTool(tool, {});
    expect(await submitted.wait).toEqual([true, true]);
    expect(form.hasAttribute('data-tool-form-active')).toBe(true);
    answer.open('later');
    expect(await pending).toBe('later');
    expect(form.hasAttribute('data-tool-form-active')).toBe(false);
    expect(button.hasAttribute('data-tool-submit-active')).toBe(false);
  });

  it('respondWith needs preventDefault first (InvalidStateError); a synthetic submit is not agent-invoked', async () => {
    const setup = page(FORM);
    const form = setup.doc.getElementById('f') as HTMLFormElement;
    const tool = await toolNamed(setup, 'fill');
    let thrown: unknown;
    form.addEventListener('submit', (event: any) => {
      try {
        event.respondWith(Promise.resolve('x'));
      } catch (error) {
        thrown = error;
      }
      event.preventDefault();
    });
    // Prevented without respondWith: the page gave no answer, a failure (as in Chromium).
    const failed = await rejection(setup.mc.executeTool(tool, {}));
    expect(failed.name).toBe('UnknownError');
    expect((thrown as DOMException).name).toBe('InvalidStateError');

    const SubmitEventClass = (setup.win as any).SubmitEvent;
    const synthetic = new SubmitEventClass('submit', { cancelable: true });
    synthetic.preventDefault();
    expect(synthetic.agentInvoked).toBe(false);
    expect(() => synthetic.respondWith(Promise.resolve(1))).toThrow(/agentInvoked/);
  });

  it('without toolautosubmit it waits for the user to submit', async () => {
    const setup = page(
      `${FORM.replace(' toolautosubmit', '')}
      <form id="auto" toolname="auto" tooldescription="Submits itself" toolautosubmit></form>`,
    );
    const form = setup.doc.getElementById('f') as HTMLFormElement;
    const button = setup.doc.getElementById('go') as HTMLButtonElement;
    const tool = await toolNamed(setup, 'fill');
    await toolNamed(setup, 'auto');
    const seen = respondOnSubmit(form, 'by the user');
    respondOnSubmit(setup.doc.getElementById('auto') as HTMLFormElement, 'submitted itself');
    let settled = false;
    const activated = new Promise((resolve) =>
      setup.mc.addEventListener('toolactivated', resolve, { once: true }),
    );
    const pending = setup.tools.callTool('fill', { t: 'manual' }).finally(() => {
      settled = true;
    });
    await activated;
    // A barrier: a form that does submit itself, called after, has its answer; a submission of
    // the first form would have come (and settled) before it.
    expect(await setup.tools.callTool('auto', {})).toBe('submitted itself');
    expect(settled).toBe(false);
    expect(seen).toEqual([]);
    // (Focus on the submit button is asserted in Chromium: happy-dom does not move focus.)
    button.click();
    expect(await pending).toBe('by the user');
    expect((seen[0] as any).agentInvoked).toBe(true);
    expect(tool.name).toBe('fill');
  });

  it('abort: AbortError, active state cleared, then toolcancel', async () => {
    const setup = page(FORM.replace(' toolautosubmit', ''));
    const form = setup.doc.getElementById('f') as HTMLFormElement;
    const tool = await toolNamed(setup, 'fill');
    const order: string[] = [];
    setup.mc.addEventListener('toolcancel', (event: any) =>
      order.push(`toolcancel:${event.toolName}:${form.hasAttribute('data-tool-form-active')}`),
    );
    const controller = new AbortController();
    const activated = nextEvent(setup.mc, 'toolactivated');
    const pending = setup.mc.executeTool(tool, {}, { signal: controller.signal });
    await activated;
    expect(form.hasAttribute('data-tool-form-active')).toBe(true);
    controller.abort();
    expect((await rejection(pending)).name).toBe('AbortError');
    await until(() => order.length, 'toolcancel');
    expect(order).toEqual(['toolcancel:fill:false']);
  });

  it('removing the form before submission: UnknownError (modelContext), NotFoundError (tools), toolcancel', async () => {
    const setup = page(FORM.replace(' toolautosubmit', ''));
    const tool = await toolNamed(setup, 'fill');
    const cancels: string[] = [];
    setup.mc.addEventListener('toolcancel', (event: any) => cancels.push(event.toolName));
    const filled = nextEvent(setup.mc, 'toolactivated');
    const viaSpec = setup.mc.executeTool(tool, {});
    await filled;
    setup.doc.getElementById('f')?.remove();
    expect((await rejection(viaSpec)).name).toBe('UnknownError');
    expect(cancels).toEqual(['fill']);

    setup.doc.body.innerHTML = FORM.replace(' toolautosubmit', '');
    await toolNamed(setup, 'fill');
    // callTool loads the validator first: remove the form once the call is waiting.
    const activated = new Promise((resolve) =>
      setup.mc.addEventListener('toolactivated', resolve, { once: true }),
    );
    const viaTools = setup.tools.callTool('fill', {});
    await activated;
    setup.doc.getElementById('f')?.remove();
    expect((await rejection(viaTools)).name).toBe('NotFoundError');
  });

  it('after respondWith the call completes even when the form is removed', async () => {
    const setup = page(FORM);
    const form = setup.doc.getElementById('f') as HTMLFormElement;
    const tool = await toolNamed(setup, 'fill');
    form.addEventListener('submit', (event: any) => {
      event.preventDefault();
      // The answer comes only once the removal has unregistered the tool.
      const unregistered = nextEvent(setup.mc, 'toolchange');
      event.respondWith(unregistered.then(() => 'finished'));
      form.remove();
    });
    expect(await setup.mc.executeTool(tool, { t: 'x' })).toBe('finished');
    await toolNamed(setup, 'fill', true);
  });

  it('input that does not fit the controls fills nothing: UnknownError, or DataError through tools', async () => {
    const setup = page(FORM);
    const form = setup.doc.getElementById('f') as HTMLFormElement;
    const tool = await toolNamed(setup, 'fill');
    const log = recordEvents(setup);
    expect((await rejection(setup.mc.executeTool(tool, { t: 'ok', m: 'p' }))).name).toBe(
      'UnknownError',
    );
    expect((await rejection(setup.mc.executeTool(tool, { r: 'c' }))).name).toBe('UnknownError');
    // window.tools (and so the wire) is refused by the same check, with every misfit named.
    const refused = await rejection(
      setup.tools.callTool('fill', { n: 'four', r: 'c', m: ['p', 1, 'z'], t: 't' }),
    );
    expect(refused.name).toBe('DataError');
    expect(refused.error.errors).toEqual([
      { path: '/n', reason: 'must be number', schemaPath: '#/properties/n/type' },
      {
        path: '/r',
        reason: 'must be equal to one of the allowed values',
        schemaPath: '#/properties/r/enum',
      },
      { path: '/m/1', reason: 'must be string', schemaPath: '#/properties/m/items/type' },
      {
        path: '/m/2',
        reason: 'must be equal to one of the allowed values',
        schemaPath: '#/properties/m/items/enum',
      },
    ]);
    expect(log).toEqual([]);
    expect((form.elements.namedItem('t') as HTMLInputElement).value).toBe('');
  });

  it('the form decides what a call may fill: its inputSchema refuses nothing itself', async () => {
    const setup = page(`
      <form id="v" toolname="valid" tooldescription="Validated" toolautosubmit>
        <input name="code" pattern="[A-Z]{3}"><input name="who" required>
        <input type="number" name="odd" min="1" step="2"><input type="number" name="n" max="5">
        <input type="date" name="day">
        <button type="submit">Go</button>
      </form>`);
    const form = setup.doc.getElementById('v') as HTMLFormElement;
    const tool = await toolNamed(setup, 'valid');
    // No multipleOf: the form counts steps from min (1, 3, 5...).
    expect(tool.inputSchema.properties.odd).toEqual({ type: 'number', minimum: 1 });
    const submitted: unknown[] = [];
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      submitted.push(Object.fromEntries(new FormData(form)));
      (event as unknown as { respondWith(p: unknown): void }).respondWith(Promise.resolve('ok'));
    });
    // The honest path first, through both roads.
    // (No value for odd: happy-dom counts its steps from 0, which HTML does not.)
    const valid = { code: 'ABC', who: 'ada', n: 5, day: '2026-02-28' };
    expect(await setup.tools.callTool('valid', valid, { encoding: 'json' })).toBe('ok');
    form.reset();
    expect(await setup.mc.executeTool(tool, valid)).toBe('ok');
    // What the form's own validation refuses: both roads, the form not submitted.
    form.reset();
    const viaTools = await rejection(
      setup.tools.callTool('valid', { code: 'abc', n: 6 }, { encoding: 'json' }),
    );
    expect(viaTools.name).toBe('DataError');
    const issues: { path: string; schemaPath: string }[] = viaTools.error.errors;
    expect(issues.map(({ path, schemaPath }) => [path, schemaPath])).toEqual([
      ['/code', '#/properties/code/pattern'],
      ['/who', '#/required'],
      ['/n', '#/properties/n/maximum'],
    ]);
    form.reset();
    expect((await rejection(setup.mc.executeTool(tool, { code: 'abc', who: 'x' }))).name).toBe(
      'UnknownError',
    );
    // A date the control would blank is refused before anything is filled.
    form.reset();
    const day = await rejection(setup.tools.callTool('valid', { who: 'x', day: 'soon' }));
    expect(day.error.errors).toEqual([
      { path: '/day', reason: 'must match format "date"', schemaPath: '#/properties/day/format' },
    ]);
    expect((form.elements.namedItem('who') as HTMLInputElement).value).toBe('');
    expect(submitted).toHaveLength(2);
  });

  it('tools.callTool returns the respondWith value as it is (structured)', async () => {
    const setup = page(FORM);
    const form = setup.doc.getElementById('f') as HTMLFormElement;
    await toolNamed(setup, 'fill');
    respondOnSubmit(form, { when: 'now', list: [1, 2] });
    expect(await setup.tools.callTool('fill', { c: true })).toEqual({
      when: 'now',
      list: [1, 2],
    });
    const failing = form.cloneNode(true) as HTMLFormElement;
    failing.setAttribute('toolname', 'failing');
    failing.id = 'failing';
    failing.addEventListener('submit', (event: any) => {
      event.preventDefault();
      event.respondWith(Promise.reject(new RangeError('no seats')));
    });
    setup.doc.body.append(failing);
    await toolNamed(setup, 'failing');
    const failure = await rejection(setup.tools.callTool('failing', {}));
    expect(failure.name).toBe('ToolExecutionError');
    expect(failure.error.cause).toMatchObject({ name: 'RangeError', message: 'no seats' });
  });

  it('resetting the form cancels a waiting call', async () => {
    const setup = page(FORM.replace(' toolautosubmit', ''));
    const form = setup.doc.getElementById('f') as HTMLFormElement;
    const tool = await toolNamed(setup, 'fill');
    const activated = nextEvent(setup.mc, 'toolactivated');
    const pending = setup.mc.executeTool(tool, { t: 'x' });
    await activated;
    form.reset();
    expect((await rejection(pending)).name).toBe('UnknownError');
    expect(form.hasAttribute('data-tool-form-active')).toBe(false);
  });
});
