import { expect, type Page, test } from '@playwright/test';
import { enumOf } from '../packages/polyfill/test/contract/declarative-cases.js';

// Declarative (form) tools in real Chromium with native WebMCP off (issue 9): the polyfill
// scans the forms, synthesizes schemas, fills controls as a user would, and answers calls
// from the submit event. The built IIFE is covered at the end. (Chromium's own declarative
// support is compared through the contract suite, project chromium-native.)

const PAGE = '/e2e/pages/declarative/index.html';

async function ready(page: Page): Promise<void> {
  await page.goto(PAGE);
  await expect(page.locator('#status')).toHaveText('ready');
  // The chunk loads lazily: wait until the forms are tools.
  await expect
    .poll(() => listed(page))
    .toEqual(expect.arrayContaining(['all', 'fill', 'manual', 'shadowed']));
}

/** The names document.modelContext lists now. */
function listed(page: Page): Promise<string[]> {
  return page.evaluate(async () =>
    ((await (document as any).modelContext.getTools()) as { name: string }[]).map(
      (tool) => tool.name,
    ),
  );
}

test.beforeEach(async ({ page }) => {
  await ready(page);
});

test('schema synthesis: every control type, as getTools lists it', async ({ page }) => {
  const tool = await page.evaluate(async () => {
    const tools = await (document as any).modelContext.getTools();
    const found = tools.find((entry: { name: string }) => entry.name === 'all');
    return { ...found, window: found.window === window };
  });
  expect(tool).toEqual({
    description: 'Every control',
    inputSchema: {
      type: 'object',
      properties: {
        t: {
          type: 'string',
          pattern: '^(?:[a-z]+)$',
          description: 'Lower-case letters',
        },
        e: { type: 'string', format: 'email' },
        u: { type: 'string', format: 'uri' },
        tel: { type: 'string' },
        pw: { type: 'string' },
        s: { type: 'string' },
        n: { type: 'number', minimum: 1, maximum: 9, multipleOf: 1 },
        n2: { type: 'number', multipleOf: 0.5 },
        r: { type: 'number', minimum: 0, maximum: 100, multipleOf: 1 },
        c: { type: 'boolean' },
        multi: { type: 'array', items: enumOf(['1', '2']), uniqueItems: true },
        rad: enumOf(['red', 'blue']),
        sel: enumOf(['a', 'b'], ['Alpha', 'Beta']),
        selm: { type: 'array', items: enumOf(['x', 'y'], ['X', 'Y']), uniqueItems: true },
        d: { type: 'string', format: 'date' },
        tm: {
          type: 'string',
          pattern: '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$',
        },
        dl: {
          type: 'string',
          pattern:
            '^[0-9]{4,}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$',
        },
        mo: { type: 'string', pattern: '^[0-9]{4,}-(0[1-9]|1[0-2])$' },
        wk: { type: 'string', pattern: '^[0-9]{4,}-W(0[1-9]|[1-4][0-9]|5[0-3])$' },
        col: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' },
        ta: { type: 'string' },
      },
      required: ['t', 'rad'],
      description:
        'File inputs (upload) cannot be filled by an agent; the user must choose those files before the form is submitted.',
    },
    name: 'all',
    origin: new URL(page.url()).origin,
    title: 'All',
    window: true,
  });
  // Each synthesized pattern accepts what the control itself produces.
  const accepted = await page.evaluate(() => {
    const form = document.getElementById('all') as HTMLFormElement;
    const values: Record<string, string> = {
      tm: '09:30',
      dl: '2026-11-30T09:30',
      mo: '2026-11',
      wk: '2026-W48',
      col: '#00ff7f',
    };
    return Object.entries(values).map(([name, value]) => {
      const input = form.elements.namedItem(name) as HTMLInputElement;
      input.value = value;
      return input.value === value;
    });
  });
  expect(accepted).toEqual([true, true, true, true, true]);
});

test('filling: one input and one change per changed control, none when unchanged', async ({
  page,
}) => {
  const result = await page.evaluate(async () => {
    const mc = (document as any).modelContext;
    const form = document.getElementById('fill') as HTMLFormElement;
    const log: string[] = [];
    for (const type of ['input', 'change']) {
      document.addEventListener(type, (event) => {
        const target = event.target as HTMLInputElement;
        log.push(`${type}:${target.name}:${event.bubbles}:${event.composed}`);
      });
    }
    form.addEventListener('submit', (event: any) => {
      event.preventDefault();
      event.respondWith(Promise.resolve({ ok: true }));
    });
    const tool = (await mc.getTools()).find((entry: { name: string }) => entry.name === 'fill');
    const input = { t: 'text', n: 4, c: true, r: 'b', s: 'y', m: ['p', 'r'], ta: 'long' };
    const first = await mc.executeTool(tool, input);
    const firstLog = log.splice(0);
    await mc.executeTool(tool, input);
    const sameLog = log.splice(0);
    await mc.executeTool(tool, { m: ['q'] });
    const multiLog = log.splice(0);
    await mc.executeTool(tool, { m: ['q'] });
    const multiAgain = log.splice(0);
    const m = form.elements.namedItem('m') as HTMLSelectElement;
    return {
      first,
      firstLog,
      sameLog,
      multiLog,
      multiAgain,
      values: [
        (form.elements.namedItem('t') as HTMLInputElement).value,
        (form.elements.namedItem('c') as HTMLInputElement).checked,
        [...m.selectedOptions].map((option) => option.value),
      ],
    };
  });
  expect(result.first).toBe('{"ok":true}');
  const pair = (name: string) => [`input:${name}:true:true`, `change:${name}:true:false`];
  expect(result.firstLog).toEqual(['t', 'n', 'c', 'r', 's', 'm', 'ta'].flatMap(pair));
  expect(result.sameLog).toEqual([]);
  expect(result.multiLog).toEqual(pair('m'));
  expect(result.multiAgain).toEqual([]);
  expect(result.values).toEqual(['text', true, ['q']]);
});

test('autosubmit: toolactivated after filling, agentInvoked, active attributes only during the call', async ({
  page,
}) => {
  const result = await page.evaluate(async () => {
    const mc = (document as any).modelContext;
    const form = document.getElementById('fill') as HTMLFormElement;
    const button = document.getElementById('fill-go') as HTMLButtonElement;
    const order: string[] = [];
    let during: unknown;
    mc.addEventListener('toolactivated', (event: any) =>
      order.push(
        `toolactivated:${event.toolName}:${(form.elements.namedItem('t') as HTMLInputElement).value}`,
      ),
    );
    form.addEventListener('submit', (event: any) => {
      order.push(`submit:${event.agentInvoked}`);
      during = {
        form: form.hasAttribute('data-tool-form-active'),
        button: button.hasAttribute('data-tool-submit-active'),
        formStyle: getComputedStyle(form).backgroundColor,
        buttonStyle: getComputedStyle(button).color,
      };
      event.preventDefault();
      // An answer a little after the submit event (simulated work: any delay passes, none is waited for).
      event.respondWith(new Promise((resolve) => setTimeout(() => resolve('answered'), 50)));
    });
    const tool = (await mc.getTools()).find((entry: { name: string }) => entry.name === 'fill');
    const answer = await mc.executeTool(tool, { t: 'hello' });
    return {
      answer,
      order,
      during,
      after: [
        form.hasAttribute('data-tool-form-active'),
        button.hasAttribute('data-tool-submit-active'),
      ],
      byTools: await (window as any).toolwireTools.callTool('fill', { t: 'again' }),
    };
  });
  expect(result.answer).toBe('answered');
  expect(result.order.slice(0, 2)).toEqual(['toolactivated:fill:hello', 'submit:true']);
  expect(result.during).toEqual({
    form: true,
    button: true,
    formStyle: 'rgb(0, 255, 0)',
    buttonStyle: 'rgb(255, 0, 0)',
  });
  expect(result.after).toEqual([false, false]);
  expect(result.byTools).toBe('answered');
});

test('manual submit: the call waits, the submit button has focus, the user clicks it', async ({
  page,
}) => {
  await page.evaluate(() => {
    const mc = (document as any).modelContext;
    const form = document.getElementById('manual') as HTMLFormElement;
    (window as any).seen = [];
    form.addEventListener('submit', (event: any) => {
      (window as any).seen.push(event.agentInvoked);
      event.preventDefault();
      event.respondWith(
        Promise.resolve({ sent: (form.elements.namedItem('q') as HTMLInputElement).value }),
      );
    });
    (window as any).pending = mc.getTools().then((tools: any[]) =>
      mc.executeTool(
        tools.find((tool) => tool.name === 'manual'),
        { q: 'from the agent' },
      ),
    );
  });
  await expect(page.locator('#manual')).toHaveAttribute('data-tool-form-active', '');
  await expect(page.locator('#manual-go')).toBeFocused();
  expect(await page.evaluate(() => (window as any).seen)).toEqual([]);
  await page.click('#manual-go');
  expect(await page.evaluate(() => (window as any).pending)).toBe('{"sent":"from the agent"}');
  // The click's submit is the only one: a submit of the polyfill's own, before it, would be here too.
  expect(await page.evaluate(() => (window as any).seen)).toEqual([true]);
  await expect(page.locator('#manual')).not.toHaveAttribute('data-tool-form-active');
});

test('respondWith rules; a navigating submit resolves null; form.submit() too; prevent alone fails', async ({
  page,
}) => {
  const result = await page.evaluate(async () => {
    const mc = (document as any).modelContext;
    const tools = (window as any).toolwireTools;
    const form = document.getElementById('fill') as HTMLFormElement;
    const tool = (await mc.getTools()).find((entry: { name: string }) => entry.name === 'fill');
    const outcome = (promise: Promise<unknown>) =>
      promise.then(
        (value) => ({ value }),
        (error) => ({ error: error.name }),
      );
    let mode = '';
    let thrown = '';
    form.addEventListener('submit', (event: any) => {
      if (mode === 'respond-first') {
        try {
          event.respondWith(Promise.resolve('x'));
        } catch (error) {
          thrown = (error as Error).name;
        }
        event.preventDefault();
      } else if (mode === 'submit') {
        event.preventDefault();
        form.submit();
      } else if (mode === 'prevent') {
        event.preventDefault();
      }
    });
    mode = 'navigate';
    const navigated = await outcome(mc.executeTool(tool, { t: 'nav' }));
    const navigatedTools = await outcome(tools.callTool('fill', { t: 'nav2' }));
    mode = 'submit';
    const submitted = await outcome(mc.executeTool(tool, { t: 'sub' }));
    mode = 'prevent';
    const prevented = await outcome(mc.executeTool(tool, { t: 'prev' }));
    const preventedTools = await outcome(tools.callTool('fill', { t: 'prev2' }));
    mode = 'respond-first';
    const respondFirst = await outcome(mc.executeTool(tool, { t: 'rf' }));
    const synthetic = new SubmitEvent('submit', { cancelable: true });
    synthetic.preventDefault();
    let syntheticError = '';
    try {
      (synthetic as any).respondWith(Promise.resolve(1));
    } catch (error) {
      syntheticError = (error as Error).name;
    }
    return {
      navigated,
      navigatedTools,
      submitted,
      prevented,
      preventedTools,
      respondFirst,
      thrown,
      synthetic: [(synthetic as any).agentInvoked, syntheticError],
    };
  });
  expect(result.navigated).toEqual({ value: null });
  expect(result.navigatedTools).toEqual({ value: null });
  expect(result.submitted).toEqual({ value: null });
  expect(result.prevented).toEqual({ error: 'UnknownError' });
  expect(result.preventedTools).toEqual({ error: 'ToolExecutionError' });
  expect(result.respondFirst).toEqual({ error: 'UnknownError' });
  expect(result.thrown).toBe('InvalidStateError');
  expect(result.synthetic).toEqual([false, 'InvalidStateError']);
});

test('attribute changes update the tool with toolchange; removing a required attribute unregisters', async ({
  page,
}) => {
  const result = await page.evaluate(async () => {
    const mc = (document as any).modelContext;
    const form = document.getElementById('manual') as HTMLFormElement;
    let changes = 0;
    mc.addEventListener('toolchange', () => changes++);
    /** Makes one change and waits for its toolchange (each step below makes exactly one). */
    const change = async (step: () => void) => {
      const changed = new Promise((resolve) =>
        mc.addEventListener('toolchange', resolve, { once: true }),
      );
      step();
      await changed;
    };
    const find = async (name: string) =>
      (await mc.getTools()).find((tool: { name: string }) => tool.name === name);
    const steps: unknown[] = [];
    await change(() => form.setAttribute('tooltitle', 'Manual form'));
    steps.push([changes, (await find('manual'))?.title]);
    await change(() => form.setAttribute('tooldescription', 'Described again'));
    steps.push([changes, (await find('manual'))?.description]);
    const extra = document.createElement('input');
    extra.type = 'number';
    extra.name = 'count';
    extra.required = true;
    await change(() => form.append(extra));
    steps.push([changes, (await find('manual'))?.inputSchema]);
    await change(() => form.setAttribute('toolname', 'renamed'));
    steps.push([changes, Boolean(await find('manual')), Boolean(await find('renamed'))]);
    await change(() => form.removeAttribute('tooldescription'));
    steps.push([changes, Boolean(await find('renamed'))]);
    await change(() => form.setAttribute('tooldescription', 'Back again'));
    await change(() => form.remove());
    steps.push([changes, Boolean(await find('renamed'))]);
    return steps;
  });
  expect(result).toEqual([
    [1, 'Manual form'],
    [2, 'Described again'],
    [
      3,
      {
        type: 'object',
        properties: { q: { type: 'string' }, count: { type: 'number', multipleOf: 1 } },
        required: ['count'],
      },
    ],
    [4, false, true],
    [5, false],
    [7, false],
  ]);
});

test('a form in an open shadow root is a tool; forms of frameless documents are not', async ({
  page,
}) => {
  const result = await page.evaluate(async () => {
    const mc = (document as any).modelContext;
    const root = (document.getElementById('host') as HTMLElement).shadowRoot as ShadowRoot;
    const form = root.querySelector('form') as HTMLFormElement;
    form.addEventListener('submit', (event: any) => {
      event.preventDefault();
      event.respondWith(Promise.resolve(`got ${event.agentInvoked}`));
    });
    const tools = await mc.getTools();
    const shadowed = tools.find((tool: { name: string }) => tool.name === 'shadowed');
    const answer = await mc.executeTool(shadowed, { word: 'deep' });
    const changed = () =>
      new Promise((resolve) => mc.addEventListener('toolchange', resolve, { once: true }));
    // A task boundary on purpose: the polyfill's MutationObserver (a microtask) has seen each
    // step before the next, as when a page does them in separate tasks.
    const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
    // A shadow root attached to an element already in the document, filled afterwards.
    const section = document.createElement('section');
    document.body.append(section);
    await nextTask();
    const attached = section.attachShadow({ mode: 'open' });
    await nextTask();
    const html = '<form toolname="frameless" tooldescription="No window"></form>';
    const created = document.implementation.createHTMLDocument('x');
    created.body.innerHTML = html;
    const parsed = new DOMParser().parseFromString(html, 'text/html');
    // The honest form after the frameless ones: once its toolchange fired, the polyfill has
    // handled everything before it.
    const attachedChanged = changed();
    attached.innerHTML = '<form toolname="attached.later" tooldescription="In place"></form>';
    await attachedChanged;
    const listedBefore = (await mc.getTools()).map((tool: any) => tool.name);
    const before = listedBefore.includes('frameless');
    const importedChanged = changed();
    document.body.append(document.importNode(parsed.querySelector('form') as Element, true));
    await importedChanged;
    const names = (await mc.getTools()).map((tool: any) => tool.name);
    return {
      schema: shadowed.inputSchema,
      answer,
      before,
      after: names.includes('frameless'),
      attachedLater: listedBefore.includes('attached.later') && names.includes('attached.later'),
    };
  });
  expect(result).toEqual({
    schema: {
      type: 'object',
      properties: { word: { type: 'string' } },
      required: ['word'],
    },
    answer: 'got true',
    before: false,
    after: true,
    attachedLater: true,
  });
});

test('abort: AbortError, active attributes cleared, toolcancel', async ({ page }) => {
  const result = await page.evaluate(async () => {
    const mc = (document as any).modelContext;
    const form = document.getElementById('manual') as HTMLFormElement;
    const events: string[] = [];
    mc.addEventListener('toolcancel', (event: any) =>
      events.push(`toolcancel:${event.toolName}:${form.hasAttribute('data-tool-form-active')}`),
    );
    const tool = (await mc.getTools()).find((entry: { name: string }) => entry.name === 'manual');
    const event = (type: string) =>
      new Promise((resolve) => mc.addEventListener(type, resolve, { once: true }));
    /** A call that waits for its submit, aborted once the form is active. */
    const aborted = async () => {
      const controller = new AbortController();
      const activated = event('toolactivated');
      const pending = mc.executeTool(tool, { q: 'x' }, { signal: controller.signal });
      await activated;
      const active = form.hasAttribute('data-tool-form-active');
      const cancelled = event('toolcancel');
      controller.abort();
      const error = await pending.then(
        () => 'resolved',
        (e: Error) => e.name,
      );
      await cancelled;
      return { active, error };
    };
    const { active, error } = await aborted();
    const after = (document.getElementById('manual-go') as HTMLElement).hasAttribute(
      'data-tool-submit-active',
    );
    const once = [...events];
    // The same again: its toolcancel comes after any second one of the first call's.
    const again = await aborted();
    return {
      active,
      error,
      again,
      events: once,
      all: events,
      after,
    };
  });
  expect(result).toEqual({
    active: true,
    error: 'AbortError',
    again: { active: true, error: 'AbortError' },
    events: ['toolcancel:manual:false'],
    all: ['toolcancel:manual:false', 'toolcancel:manual:false'],
    after: false,
  });
});

test('form removal: before submit UnknownError / NotFoundError; after respondWith the call completes', async ({
  page,
}) => {
  const result = await page.evaluate(async () => {
    const mc = (document as any).modelContext;
    const tools = (window as any).toolwireTools;
    const outcome = (promise: Promise<unknown>) =>
      promise.then(
        (value) => ({ value }),
        (error) => ({ error: error.name }),
      );
    const event = (type: string) =>
      new Promise((resolve) => mc.addEventListener(type, resolve, { once: true }));
    const names = async () =>
      (await mc.getTools()).map((entry: { name: string }) => entry.name) as string[];
    /** Until `name` is listed (or not): each toolchange looks again. */
    const untilListed = async (name: string, want: boolean) => {
      for (;;) {
        const next = event('toolchange');
        if ((await names()).includes(name) === want) return;
        await next;
      }
    };
    const manual = document.getElementById('manual') as HTMLFormElement;
    const tool = (await mc.getTools()).find((entry: { name: string }) => entry.name === 'manual');
    // Remove the form once the call is waiting for its submit.
    const activatedSpec = event('toolactivated');
    const viaSpec = outcome(mc.executeTool(tool, { q: 'x' }));
    await activatedSpec;
    manual.remove();
    const before = await viaSpec;
    document.body.append(manual);
    await untilListed('manual', true);
    // callTool loads the validator first: remove the form once the call is waiting.
    const activated = event('toolactivated');
    const viaTools = outcome(tools.callTool('manual', { q: 'y' }));
    await activated;
    manual.remove();
    const beforeTools = await viaTools;

    // The answer is held until the form's removal has been handled (it is no longer a tool).
    const fill = document.getElementById('fill') as HTMLFormElement;
    let answer: (value: string) => void = () => {};
    fill.addEventListener('submit', (event: any) => {
      event.preventDefault();
      event.respondWith(
        new Promise<string>((resolve) => {
          answer = resolve;
        }),
      );
      fill.remove();
    });
    const fillTool = (await mc.getTools()).find((entry: { name: string }) => entry.name === 'fill');
    const pending = outcome(mc.executeTool(fillTool, { t: 'z' }));
    await untilListed('fill', false);
    answer('completed');
    const after = await pending;
    const listed = await names();
    return { before, beforeTools, after, listed };
  });
  expect(result).toEqual({
    before: { error: 'UnknownError' },
    beforeTools: { error: 'NotFoundError' },
    after: { value: 'completed' },
    listed: ['all', 'shadowed'],
  });
});

test('declarative tools are agent-exposed in window.tools', async ({ page }) => {
  const listed = await page.evaluate(async () =>
    (await (window as any).toolwireTools.getTools({ agentOnly: true })).map(
      (tool: { name: string; agentExposed: boolean }) => `${tool.name}:${tool.agentExposed}`,
    ),
  );
  expect(listed).toEqual(['all:true', 'fill:true', 'manual:true', 'shadowed:true']);
});

test('the endpoint catalog serves form tools unchanged (packages/endpoint page-tools)', async ({
  page,
}) => {
  const view = await page.evaluate(async () => {
    const form = document.getElementById('fill') as HTMLFormElement;
    form.addEventListener('submit', (event: any) => {
      event.preventDefault();
      event.respondWith(
        Promise.resolve({ t: (form.elements.namedItem('t') as HTMLInputElement).value }),
      );
    });
    return (window as any).endpointView('fill', { t: 'over the wire' });
  });
  expect(view.ids).toEqual(['all', 'fill', 'manual', 'shadowed']);
  expect(view.definition).toMatchObject({
    id: 'fill',
    name: 'fill',
    description: 'Fills controls',
    policy: 'write',
    argumentsSchema: { type: 'object', properties: { t: { type: 'string' } } },
  });
  expect(view.result).toEqual({ t: 'over the wire' });
});

test('the built IIFE discovers a form on a page with no script of its own', async ({ page }) => {
  const requested: string[] = [];
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
  await page.goto('/e2e/pages/declarative/iife.html');
  await expect.poll(() => listed(page)).toContain('built.search');
  const tool = await page.evaluate(async () => {
    const tools = await (document as any).modelContext.getTools();
    const found = tools.find((entry: { name: string }) => entry.name === 'built.search');
    return { ...found, window: found.window === window };
  });
  expect(tool).toEqual({
    description: 'Searches, found by the built IIFE',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to look for' } },
      required: ['query'],
    },
    name: 'built.search',
    origin: new URL(page.url()).origin,
    title: 'Search',
    window: true,
  });
  expect(requested).toContain('/built/polyfill/polyfill-declarative.js');
  const answer = await page.evaluate(async () => {
    const form = document.querySelector('form') as HTMLFormElement;
    form.addEventListener('submit', (event: any) => {
      event.preventDefault();
      event.respondWith(
        Promise.resolve({ found: (form.elements.namedItem('query') as HTMLInputElement).value }),
      );
    });
    // The user submits once the agent has filled the form (callTool first loads the validator).
    const activated = new Promise((resolve) =>
      (document as any).modelContext.addEventListener('toolactivated', resolve, { once: true }),
    );
    const pending = (window as any).tools.callTool('built.search', { query: 'lamps' });
    await activated;
    form.requestSubmit();
    return pending;
  });
  expect(answer).toEqual({ found: 'lamps' });
});

test('a page without tool forms never loads the declarative chunk', async ({ page }) => {
  const requested: string[] = [];
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
  await page.goto('/e2e/pages/iife.html');
  await page.waitForFunction(() => (window as any).tools !== undefined);
  // A request of the page's own after the install: requests are reported in order, so a chunk
  // the install asked for would be listed before it.
  await Promise.all([
    page.waitForRequest((request) => request.url().endsWith('?barrier')),
    page.evaluate(() => fetch('/e2e/pages/index.html?barrier')),
  ]);
  expect(requested.some((path) => path.includes('polyfill-declarative'))).toBe(false);
  // The honest path: once a tool form arrives, the chunk loads (this test can see it).
  await page.evaluate(() => {
    document.body.insertAdjacentHTML(
      'beforeend',
      '<form toolname="late" tooldescription="Arrives later"></form>',
    );
  });
  await expect
    .poll(() => requested.some((path) => path.includes('polyfill-declarative')))
    .toBe(true);
});
