/**
 * Contract cases for declarative (form) tools (issue 9), run like the others: the polyfill
 * under happy-dom and in Chromium with native WebMCP off, and Chromium's own declarative
 * support (project chromium-native). Chromium 156's differences are listed in
 * DECLARATIVE_NATIVE_DIFFERENCES (merged into NATIVE_DIFFERENCES), each with a reason; the
 * native run asserts they still differ. A submit that navigates is left to the e2e suite:
 * happy-dom would navigate the test window.
 */
import { deepEqual, equal, nextEvent, ok, rejects, rejectsWith } from './assert.js';
import type { ContractCase, ContractEnv } from './cases.js';

export const DECLARATIVE_NATIVE_DIFFERENCES: Readonly<Record<string, string>> = {
  'declarative: date is format date; time, datetime-local, month, week and color carry a pattern':
    'Chromium 156 puts the regular expression in `format` (not a JSON Schema format) and adds a default description to date inputs; the polyfill uses `pattern`, and `format: date` without a description.',
  'declarative: an HTML pattern is anchored':
    'Chromium 156 copies the pattern unanchored (JSON Schema patterns match anywhere, HTML patterns the whole value).',
  'declarative: email and url inputs carry format email and uri':
    'Chromium 156 emits a plain string for email and url inputs.',
  'declarative: toolparamtitle becomes the property title': 'Chromium 156 ignores toolparamtitle.',
  'declarative: file inputs are left out and named in the schema description':
    'Chromium 156 leaves file inputs out silently: no description on the input schema.',
  'declarative: a checkbox or radio that already has the value gets no events':
    'Chromium 156 dispatches `change` (without `input`) on a checkbox or radio whose state does not change.',
  'declarative: toolactivated fires after filling and before the submit event':
    'Chromium 156 fires toolactivated in a task after the autosubmitted submit event has been dispatched.',
  'declarative: respondWith(undefined) is an UnknownError':
    'Chromium 156 resolves with the string "undefined", as it does for imperative tools (see executeTool: a result of undefined is an UnknownError).',
  'declarative: removing the form before submission rejects UnknownError and fires toolcancel':
    'Chromium 156 rejects UnknownError but fires no toolcancel (its own WPT expectation for unregister-during-executeTool marks this FAIL too).',
};

/** Adds `html` to the document for the duration of the case; waits for the tool `name`. */
async function formTool(env: ContractEnv, html: string, name: string) {
  const box = env.win.document.createElement('div');
  box.innerHTML = html;
  env.win.document.body.append(box);
  env.signal.addEventListener('abort', () => box.remove());
  const tool = await toolNamed(env, name);
  return { box, form: box.querySelector('form') as HTMLFormElement, tool };
}

/**
 * Waits until `mc.getTools()` has what `check` looks for (its result, when truthy): looks
 * again after each toolchange, the event every change of the list fires.
 */
export async function whenListed<T>(env: { mc: any }, check: (tools: any[]) => T): Promise<T> {
  for (;;) {
    // Listening before asking: a change that lands after the answer is not missed.
    const changed = nextEvent(env.mc, 'toolchange');
    const found = check(await env.mc.getTools());
    if (found) return found;
    await changed;
  }
}

/** Waits until `mc.getTools()` lists `name` (or, with `gone`, until it does not). */
export async function toolNamed(env: { mc: any }, name: string, gone = false): Promise<any> {
  return whenListed(env, (tools) => {
    const found = tools.find((tool: { name: string }) => tool.name === name);
    return gone ? !found : found;
  });
}

/** Records input and change events at the document as `type:name`. */
function eventLog(env: ContractEnv): string[] {
  const log: string[] = [];
  for (const type of ['input', 'change']) {
    const listener = (event: Event) =>
      log.push(`${type}:${(event.target as HTMLInputElement).name}`);
    env.win.document.addEventListener(type, listener);
    env.signal.addEventListener('abort', () =>
      env.win.document.removeEventListener(type, listener),
    );
  }
  return log;
}

function answerWith(form: HTMLFormElement, value: () => unknown): void {
  form.addEventListener('submit', (event: any) => {
    event.preventDefault();
    event.respondWith(Promise.resolve(value()));
  });
}

/** The active state: Chromium's pseudo-class natively, the polyfill's attribute otherwise. */
function isActive(env: ContractEnv, form: HTMLFormElement): boolean {
  return env.native
    ? form.matches(':tool-form-active')
    : form.hasAttribute('data-tool-form-active');
}

/** The enum schema form tools get: `anyOf` of consts (titled when labelled) plus `enum`. */
export const enumOf = (values: string[], titles?: string[]) => ({
  type: 'string',
  anyOf: values.map((value, i) => ({
    type: 'string',
    const: value,
    ...(titles ? { title: titles[i] } : {}),
  })),
  enum: values,
});

const ECHO = `
  <form toolname="echo.form" tooldescription="Echoes" toolautosubmit>
    <input name="t"><input type="checkbox" name="c">
    <input type="radio" name="r" value="a"><input type="radio" name="r" value="b">
    <select name="m" multiple><option>p</option><option>q</option></select>
    <button type="submit">Go</button>
  </form>`;

export const DECLARATIVE_CASES: ContractCase[] = [
  {
    name: 'declarative: a form is a tool: title, description, text/number/checkbox, required, descriptions',
    kind: 'declarative',
    async run(env) {
      const { tool } = await formTool(
        env,
        `<form toolname="book" tooldescription="Books a table" tooltitle="Book">
          <input name="who" required toolparamdescription="Who books">
          <input type="number" name="seats" min="1" max="8">
          <input type="checkbox" name="terrace">
          <textarea name="notes"></textarea>
        </form>`,
        'book',
      );
      deepEqual(
        { ...tool, window: tool.window === env.win },
        {
          description: 'Books a table',
          inputSchema: {
            type: 'object',
            properties: {
              who: { type: 'string', description: 'Who books' },
              seats: { type: 'number', minimum: 1, maximum: 8, multipleOf: 1 },
              terrace: { type: 'boolean' },
              notes: { type: 'string' },
            },
            required: ['who'],
          },
          name: 'book',
          origin: env.win.location.origin,
          title: 'Book',
          window: true,
        },
        'RegisteredTool',
      );
    },
  },
  {
    name: 'declarative: radio groups and selects are string enums; select multiple and checkbox groups are arrays',
    kind: 'declarative',
    async run(env) {
      const { tool } = await formTool(
        env,
        `<form toolname="pick" tooldescription="Picks">
          <input type="radio" name="color" value="red" required><input type="radio" name="color" value="blue">
          <select name="size"><option value="s">Small</option><option value="l">Large</option></select>
          <select name="extras" multiple><option value="x">Ex</option><option value="y">Why</option></select>
          <input type="checkbox" name="days" value="mon"><input type="checkbox" name="days" value="tue">
          <input type="range" name="volume">
        </form>`,
        'pick',
      );
      deepEqual(
        tool.inputSchema,
        {
          type: 'object',
          properties: {
            color: enumOf(['red', 'blue']),
            size: enumOf(['s', 'l'], ['Small', 'Large']),
            extras: { type: 'array', items: enumOf(['x', 'y'], ['Ex', 'Why']), uniqueItems: true },
            days: { type: 'array', items: enumOf(['mon', 'tue']), uniqueItems: true },
            volume: { type: 'number', minimum: 0, maximum: 100, multipleOf: 1 },
          },
          required: ['color'],
        },
        'inputSchema',
      );
    },
  },
  {
    name: 'declarative: labels describe a control without toolparamdescription and title radio and checkbox values',
    kind: 'declarative',
    async run(env) {
      const { tool } = await formTool(
        env,
        `<form toolname="labelled" tooldescription="Labels">
          <label> Your  name <input name="who"></label>
          <label for="labelled-mail">Mail</label><label for="labelled-mail">(work)</label>
          <input id="labelled-mail" name="mail">
          <label>Size <select name="size"><option>s</option></select></label>
          <label>Ignored <input name="own" toolparamdescription="Own words"></label>
          <label><input type="checkbox" name="agree"> I agree</label>
          <label><input type="radio" name="color" value="red"> Red</label>
          <label><input type="radio" name="color" value="blue"> Blue</label>
          <label><input type="checkbox" name="days" value="mon"> Monday</label>
          <label><input type="checkbox" name="days" value="tue"> Tuesday</label>
          <input name="bare" placeholder="A placeholder is not a label">
        </form>`,
        'labelled',
      );
      deepEqual(
        tool.inputSchema,
        {
          type: 'object',
          properties: {
            who: { type: 'string', description: 'Your  name' },
            mail: { type: 'string', description: 'Mail; (work)' },
            size: { ...enumOf(['s'], ['s']), description: 'Size' },
            own: { type: 'string', description: 'Own words' },
            agree: { type: 'boolean', description: 'I agree' },
            color: enumOf(['red', 'blue'], ['Red', 'Blue']),
            days: {
              type: 'array',
              items: enumOf(['mon', 'tue'], ['Monday', 'Tuesday']),
              uniqueItems: true,
            },
            bare: { type: 'string' },
          },
          required: [],
        },
        'inputSchema',
      );
    },
  },
  {
    name: 'declarative: hidden, button-like, disabled and nameless controls are skipped',
    kind: 'declarative',
    async run(env) {
      const { tool } = await formTool(
        env,
        `<form toolname="skip" tooldescription="Skips">
          <input type="hidden" name="h"><input type="submit" name="s"><input type="reset" name="r">
          <input type="button" name="b"><input name="off" disabled>
          <fieldset disabled><input name="inside"></fieldset><input toolparamdescription="no name">
          <input name="kept">
        </form>`,
        'skip',
      );
      deepEqual(
        tool.inputSchema,
        { type: 'object', properties: { kept: { type: 'string' } }, required: [] },
        'inputSchema',
      );
    },
  },
  {
    name: 'declarative: date is format date; time, datetime-local, month, week and color carry a pattern',
    kind: 'declarative',
    async run(env) {
      const { tool } = await formTool(
        env,
        `<form toolname="when" tooldescription="Dates">
          <input type="date" name="d"><input type="time" name="t"><input type="datetime-local" name="dl">
          <input type="month" name="m"><input type="week" name="w"><input type="color" name="c">
        </form>`,
        'when',
      );
      const properties = tool.inputSchema.properties;
      deepEqual(properties.d, { type: 'string', format: 'date' }, 'date');
      const samples: Record<string, string> = {
        t: '09:30',
        dl: '2026-11-30T09:30',
        m: '2026-11',
        w: '2026-W48',
        c: '#00ff7f',
      };
      for (const [name, sample] of Object.entries(samples)) {
        const schema = properties[name];
        deepEqual(Object.keys(schema).sort(), ['pattern', 'type'], `${name} members`);
        ok(new RegExp(schema.pattern).test(sample), `${name} pattern accepts ${sample}`);
        ok(!new RegExp(schema.pattern).test(`x${sample}`), `${name} pattern is anchored`);
      }
    },
  },
  {
    name: 'declarative: an HTML pattern is anchored',
    kind: 'declarative',
    async run(env) {
      const { tool } = await formTool(
        env,
        `<form toolname="code" tooldescription="Codes">
          <input name="code" pattern="[A-Z]{3}">
        </form>`,
        'code',
      );
      deepEqual(
        tool.inputSchema.properties.code,
        { type: 'string', pattern: '^(?:[A-Z]{3})$' },
        'code',
      );
    },
  },
  {
    name: 'declarative: minlength and maxlength add nothing; multipleOf only where steps count from a multiple',
    kind: 'declarative',
    async run(env) {
      const { tool } = await formTool(
        env,
        `<form toolname="sizes" tooldescription="Sizes">
          <input name="code" minlength="3" maxlength="5"><textarea name="note" maxlength="9"></textarea>
          <input type="number" name="odd" min="1" step="2"><input type="number" name="half" min="1" step="0.5">
        </form>`,
        'sizes',
      );
      deepEqual(
        tool.inputSchema.properties,
        {
          code: { type: 'string' },
          note: { type: 'string' },
          odd: { type: 'number', minimum: 1 },
          half: { type: 'number', minimum: 1, multipleOf: 0.5 },
        },
        'properties',
      );
    },
  },
  {
    name: 'declarative: email and url inputs carry format email and uri',
    kind: 'declarative',
    async run(env) {
      const { tool } = await formTool(
        env,
        `<form toolname="contact" tooldescription="Contact"><input type="email" name="e"><input type="url" name="u"></form>`,
        'contact',
      );
      deepEqual(
        tool.inputSchema.properties,
        { e: { type: 'string', format: 'email' }, u: { type: 'string', format: 'uri' } },
        'properties',
      );
    },
  },
  {
    name: 'declarative: toolparamtitle becomes the property title',
    kind: 'declarative',
    async run(env) {
      const { tool } = await formTool(
        env,
        `<form toolname="titled" tooldescription="Titles"><input name="q" toolparamtitle="Query"></form>`,
        'titled',
      );
      deepEqual(tool.inputSchema.properties.q, { type: 'string', title: 'Query' }, 'q');
    },
  },
  {
    name: 'declarative: file inputs are left out and named in the schema description',
    kind: 'declarative',
    async run(env) {
      const { tool } = await formTool(
        env,
        `<form toolname="upload" tooldescription="Uploads"><input type="file" name="doc"><input name="q"></form>`,
        'upload',
      );
      deepEqual(Object.keys(tool.inputSchema.properties), ['q'], 'properties');
      ok(
        String(tool.inputSchema.description).includes('File inputs (doc)'),
        'the schema description names the file input',
      );
    },
  },
  {
    name: 'declarative: attribute changes fire toolchange and update getTools; removing toolname or the form unregisters',
    kind: 'declarative',
    async run(env) {
      const { form, box } = await formTool(
        env,
        `<form toolname="mut" tooldescription="Before" tooltitle="T1"><input name="a"></form>`,
        'mut',
      );
      let changes = 0;
      env.mc.addEventListener('toolchange', () => changes++);
      const described = (tools: any[]) =>
        tools.find((tool) => tool.name === 'mut' && tool.description === 'After');
      form.setAttribute('tooldescription', 'After');
      equal((await whenListed(env, described)).description, 'After', 'description updated');
      ok(changes >= 1, 'toolchange for the description');
      const before = changes;
      const untitled = (tools: any[]) =>
        tools.find((tool) => tool.name === 'mut' && tool.title === '');
      form.removeAttribute('tooltitle');
      equal((await whenListed(env, untitled)).title, '', 'title without tooltitle');
      ok(changes > before, 'toolchange for the title');
      form.removeAttribute('toolname');
      await toolNamed(env, 'mut', true);
      form.setAttribute('toolname', 'mut');
      await toolNamed(env, 'mut');
      box.remove();
      await toolNamed(env, 'mut', true);
    },
  },
  {
    name: 'declarative: forms of frameless documents do not register; an imported one does',
    kind: 'declarative',
    async run(env) {
      const doc = env.win.document;
      const html = '<form toolname="frameless" tooldescription="No window"></form>';
      const created = doc.implementation.createHTMLDocument('x');
      created.body.innerHTML = html;
      const parsed = new env.win.DOMParser().parseFromString(html, 'text/html');
      // A barrier: a form added to this document after them is listed, so they were seen.
      const framed = doc.createElement('div');
      framed.innerHTML = '<form toolname="framed" tooldescription="In the window"></form>';
      doc.body.append(framed);
      env.signal.addEventListener('abort', () => framed.remove());
      await toolNamed(env, 'framed');
      ok(
        !(await env.mc.getTools()).some((tool: { name: string }) => tool.name === 'frameless'),
        'not registered',
      );
      const imported = doc.importNode(parsed.querySelector('form') as Element, true);
      doc.body.append(imported);
      env.signal.addEventListener('abort', () => imported.remove());
      await toolNamed(env, 'frameless');
    },
  },
  {
    name: 'declarative: a form in an open shadow root is a tool',
    kind: 'declarative',
    async run(env) {
      const host = env.win.document.createElement('div');
      host.attachShadow({ mode: 'open' }).innerHTML =
        '<form toolname="shadow.form" tooldescription="In a shadow root"><input name="w"></form>';
      env.win.document.body.append(host);
      env.signal.addEventListener('abort', () => host.remove());
      const tool = await toolNamed(env, 'shadow.form');
      deepEqual(Object.keys(tool.inputSchema.properties), ['w'], 'properties');
    },
  },
  {
    name: 'declarative: the submit event is agentInvoked and respondWith gives the result',
    kind: 'declarative',
    async run(env) {
      const { form, tool } = await formTool(env, ECHO, 'echo.form');
      let agentInvoked: unknown;
      form.addEventListener('submit', (event: any) => {
        agentInvoked = event.agentInvoked;
      });
      answerWith(form, () => ({ t: (form.elements.namedItem('t') as HTMLInputElement).value }));
      equal(await env.mc.executeTool(tool, { t: 'hello' }), '{"t":"hello"}', 'result');
      equal(agentInvoked, true, 'agentInvoked');
      ok(!isActive(env, form), 'not active after the call');
    },
  },
  {
    name: 'declarative: filling fires one input and one change per changed control; none for unchanged text or selection',
    kind: 'declarative',
    async run(env) {
      const { form, tool } = await formTool(env, ECHO, 'echo.form');
      answerWith(form, () => 'ok');
      const log = eventLog(env);
      await env.mc.executeTool(tool, { t: 'x', c: true, r: 'b', m: ['p', 'q'] });
      deepEqual(
        log.splice(0),
        [
          'input:t',
          'change:t',
          'input:c',
          'change:c',
          'input:r',
          'change:r',
          'input:m',
          'change:m',
        ],
        'first fill',
      );
      await env.mc.executeTool(tool, { t: 'x', m: ['p', 'q'] });
      deepEqual(log.splice(0), [], 'same text and selection again');
      await env.mc.executeTool(tool, { m: ['q'] });
      deepEqual(log.splice(0), ['input:m', 'change:m'], 'a new selection: once');
    },
  },
  {
    name: 'declarative: a checkbox or radio that already has the value gets no events',
    kind: 'declarative',
    async run(env) {
      const { form, tool } = await formTool(env, ECHO, 'echo.form');
      answerWith(form, () => 'ok');
      const log = eventLog(env);
      await env.mc.executeTool(tool, { c: true, r: 'a' });
      log.length = 0;
      await env.mc.executeTool(tool, { c: true, r: 'a' });
      deepEqual(log, [], 'no events');
    },
  },
  {
    name: 'declarative: toolactivated fires after filling and before the submit event',
    kind: 'declarative',
    async run(env) {
      const { form, tool } = await formTool(env, ECHO, 'echo.form');
      const order: string[] = [];
      const onActivated = (event: any) =>
        order.push(
          `toolactivated:${event.toolName}:${(form.elements.namedItem('t') as HTMLInputElement).value}`,
        );
      env.mc.addEventListener('toolactivated', onActivated);
      env.signal.addEventListener('abort', () =>
        env.mc.removeEventListener('toolactivated', onActivated),
      );
      form.addEventListener('submit', () => order.push('submit'));
      answerWith(form, () => 'ok');
      const activated = nextEvent(env.mc, 'toolactivated');
      await env.mc.executeTool(tool, { t: 'filled' });
      await activated;
      deepEqual(order, ['toolactivated:echo.form:filled', 'submit'], 'order');
    },
  },
  {
    name: 'declarative: respondWith before preventDefault throws InvalidStateError; preventDefault alone is an UnknownError',
    kind: 'declarative',
    async run(env) {
      const { form, tool } = await formTool(env, ECHO, 'echo.form');
      let thrown: unknown;
      form.addEventListener('submit', (event: any) => {
        try {
          event.respondWith(Promise.resolve('too early'));
        } catch (error) {
          thrown = error;
        }
        event.preventDefault();
      });
      await rejectsWith(env.mc.executeTool(tool, {}), 'UnknownError', 'no respondWith');
      equal(
        (thrown as DOMException)?.name,
        'InvalidStateError',
        'respondWith without preventDefault',
      );
      const synthetic = new env.win.SubmitEvent('submit', { cancelable: true });
      synthetic.preventDefault();
      equal((synthetic as any).agentInvoked, false, 'a synthetic submit is not agent-invoked');
      let syntheticError: unknown;
      try {
        (synthetic as any).respondWith(Promise.resolve(1));
      } catch (error) {
        syntheticError = error;
      }
      equal((syntheticError as DOMException)?.name, 'InvalidStateError', 'respondWith on it');
    },
  },
  {
    name: 'declarative: an input value that does not fit its control is an UnknownError and fills nothing',
    kind: 'declarative',
    async run(env) {
      const { form, tool } = await formTool(env, ECHO, 'echo.form');
      answerWith(form, () => 'ok');
      const log = eventLog(env);
      await rejectsWith(
        env.mc.executeTool(tool, { t: 'ok', m: 'p' }),
        'UnknownError',
        'not an array',
      );
      deepEqual(log, [], 'no events');
      equal((form.elements.namedItem('t') as HTMLInputElement).value, '', 'nothing filled');
    },
  },
  {
    name: 'declarative: an autosubmitted form refuses what its own validation refuses: UnknownError, nothing submitted',
    kind: 'declarative',
    async run(env) {
      const { form, tool } = await formTool(
        env,
        `<form toolname="checked" tooldescription="Checked" toolautosubmit>
          <input name="code" pattern="[A-Z]{3}"><input name="who" required>
          <input type="number" name="n" max="5">
          <button type="submit">Go</button>
        </form>`,
        'checked',
      );
      let submitted = 0;
      answerWith(form, () => {
        submitted += 1;
        return 'ok';
      });
      // The honest path first. (minlength, which HTML checks only against what a user typed,
      // is left to e2e/declarative-agreement: happy-dom checks it against any value.)
      equal(
        await env.mc.executeTool(tool, { code: 'ABC', who: 'ada', n: 5 }),
        'ok',
        'a valid call',
      );
      for (const input of [
        { code: 'abc', who: 'ada' },
        { code: 'ABC' },
        { code: 'ABC', who: '' },
        { who: 'ada', n: 6 },
      ]) {
        form.reset();
        await rejectsWith(env.mc.executeTool(tool, input), 'UnknownError', JSON.stringify(input));
      }
      equal(submitted, 1, 'only the valid call was submitted');
    },
  },
  {
    name: 'declarative: abort rejects with the reason, ends the active state and fires toolcancel',
    kind: 'declarative',
    async run(env) {
      const { form, tool } = await formTool(env, ECHO.replace(' toolautosubmit', ''), 'echo.form');
      const cancels: string[] = [];
      const onCancel = (event: any) => cancels.push(event.toolName);
      env.mc.addEventListener('toolcancel', onCancel);
      env.signal.addEventListener('abort', () =>
        env.mc.removeEventListener('toolcancel', onCancel),
      );
      const controller = new AbortController();
      const activated = nextEvent(env.mc, 'toolactivated');
      const cancelled = nextEvent(env.mc, 'toolcancel');
      const pending = env.mc.executeTool(tool, { t: 'x' }, { signal: controller.signal });
      // Filled and waiting for the user (toolactivated fires once the form is filled).
      await activated;
      ok(isActive(env, form), 'active while waiting for the user');
      const reason = new Error('changed my mind');
      controller.abort(reason);
      equal(await rejects(pending, 'aborted'), reason, "the caller's reason");
      await cancelled;
      ok(!isActive(env, form), 'no longer active');
      deepEqual(cancels, ['echo.form'], 'toolcancel');
    },
  },
  {
    name: 'declarative: removing the form before submission rejects UnknownError and fires toolcancel',
    kind: 'declarative',
    async run(env) {
      const { box, tool } = await formTool(env, ECHO.replace(' toolautosubmit', ''), 'echo.form');
      const cancels: string[] = [];
      const onCancel = (event: any) => cancels.push(event.toolName);
      env.mc.addEventListener('toolcancel', onCancel);
      env.signal.addEventListener('abort', () =>
        env.mc.removeEventListener('toolcancel', onCancel),
      );
      const activated = nextEvent(env.mc, 'toolactivated');
      const pending = env.mc.executeTool(tool, { t: 'x' });
      await activated;
      const unregistered = nextEvent(env.mc, 'toolchange');
      box.remove();
      await rejectsWith(pending, 'UnknownError', 'form removed');
      // A barrier (not the toolcancel itself, which Chromium never fires): the removal's
      // toolchange comes in a task after the call failed.
      await unregistered;
      deepEqual(cancels, ['echo.form'], 'toolcancel');
    },
  },
  {
    name: 'declarative: after respondWith, removing the form does not fail the call',
    kind: 'declarative',
    async run(env) {
      const { box, form, tool } = await formTool(env, ECHO, 'echo.form');
      form.addEventListener('submit', (event: any) => {
        event.preventDefault();
        // The answer comes only once the removal has unregistered the tool.
        const unregistered = nextEvent(env.mc, 'toolchange');
        event.respondWith(unregistered.then(() => 'completed'));
        box.remove();
      });
      equal(await env.mc.executeTool(tool, { t: 'x' }), 'completed', 'result');
    },
  },
  {
    name: 'declarative: window.tools lists form tools as agent-exposed and calls them',
    kind: 'declarative',
    async run(env) {
      const { form } = await formTool(env, ECHO, 'echo.form');
      answerWith(form, () => ({ got: (form.elements.namedItem('t') as HTMLInputElement).value }));
      const listed = await env.tools.getTools({ agentOnly: true });
      const handle = listed.find((tool: { name: string }) => tool.name === 'echo.form');
      ok(handle?.agentExposed, 'listed as agent-exposed');
      deepEqual(
        await env.tools.callTool(handle, { t: 'via tools' }),
        { got: 'via tools' },
        'result',
      );
    },
  },
  {
    name: 'declarative: respondWith(undefined) is an UnknownError',
    kind: 'declarative',
    async run(env) {
      const { form, tool } = await formTool(env, ECHO, 'echo.form');
      answerWith(form, () => undefined);
      await rejectsWith(env.mc.executeTool(tool, {}), 'UnknownError', 'undefined answer');
    },
  },
  {
    name: 'declarative: resetting the form before submission rejects UnknownError and ends the active state',
    kind: 'declarative',
    async run(env) {
      const { form, tool } = await formTool(env, ECHO.replace(' toolautosubmit', ''), 'echo.form');
      const activated = nextEvent(env.mc, 'toolactivated');
      const pending = env.mc.executeTool(tool, { t: 'x' });
      await activated;
      form.reset();
      await rejectsWith(pending, 'UnknownError', 'form reset');
      ok(!isActive(env, form), 'no longer active');
    },
  },
];
