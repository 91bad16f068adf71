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
          minLength: 2,
          maxLength: 5,
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
        ta: { type: 'string', maxLength: 50 },
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
  await page.waitForTimeout(100);
  expect(await page.evaluate(() => (window as any).seen)).toEqual([]);
  await page.click('#manual-go');
  expect(await page.evaluate(() => (window as any).pending)).toBe('{"sent":"from the agent"}');
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
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
    const find = async (name: string) =>
      (await mc.getTools()).find((tool: { name: string }) => tool.name === name);
    const steps: unknown[] = [];
    form.setAttribute('tooltitle', 'Manual form');
    await settle();
    steps.push([changes, (await find('manual'))?.title]);
    form.setAttribute('tooldescription', 'Described again');
    await settle();
    steps.push([changes, (await find('manual'))?.description]);
    const extra = document.createElement('input');
    extra.type = 'number';
    extra.name = 'count';
    extra.required = true;
    form.append(extra);
    await settle();
    steps.push([changes, (await find('manual'))?.inputSchema]);
    form.setAttribute('toolname', 'renamed');
    await settle();
    steps.push([changes, Boolean(await find('manual')), Boolean(await find('renamed'))]);
    form.removeAttribute('tooldescription');
    await settle();
    steps.push([changes, Boolean(await find('renamed'))]);
    form.setAttribute('tooldescription', 'Back again');
    await settle();
    form.remove();
    await settle();
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
    // A shadow root attached to an element already in the document, filled afterwards.
    const section = document.createElement('section');
    document.body.append(section);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const attached = section.attachShadow({ mode: 'open' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    attached.innerHTML = '<form toolname="attached.later" tooldescription="In place"></form>';
    const html = '<form toolname="frameless" tooldescription="No window"></form>';
    const created = document.implementation.createHTMLDocument('x');
    created.body.innerHTML = html;
    const parsed = new DOMParser().parseFromString(html, 'text/html');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = (await mc.getTools()).some((tool: any) => tool.name === 'frameless');
    document.body.append(document.importNode(parsed.querySelector('form') as Element, true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const names = (await mc.getTools()).map((tool: any) => tool.name);
    return {
      schema: shadowed.inputSchema,
      answer,
      before,
      after: names.includes('frameless'),
      attachedLater: names.includes('attached.later'),
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
    const controller = new AbortController();
    const pending = mc.executeTool(tool, { q: 'x' }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const active = form.hasAttribute('data-tool-form-active');
    controller.abort();
    const error = await pending.then(
      () => 'resolved',
      (e: Error) => e.name,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    return {
      active,
      error,
      events,
      after: (document.getElementById('manual-go') as HTMLElement).hasAttribute(
        'data-tool-submit-active',
      ),
    };
  });
  expect(result).toEqual({
    active: true,
    error: 'AbortError',
    events: ['toolcancel:manual:false'],
    after: false,
  });
});

test('form removal: before submit UnknownError / NotFoundError; after respondWith the call completes', async ({
  page,
}) => {
  const result = await page.evaluate(async () => {
    const mc = (document as any).modelContext;
    const tools = (window as any).toolwireTools;
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const outcome = (promise: Promise<unknown>) =>
      promise.then(
        (value) => ({ value }),
        (error) => ({ error: error.name }),
      );
    const manual = document.getElementById('manual') as HTMLFormElement;
    const tool = (await mc.getTools()).find((entry: { name: string }) => entry.name === 'manual');
    const viaSpec = outcome(mc.executeTool(tool, { q: 'x' }));
    await wait(50);
    manual.remove();
    const before = await viaSpec;
    document.body.append(manual);
    await wait(50);
    // callTool loads the validator first: remove the form once the call is waiting.
    const activated = new Promise((resolve) =>
      mc.addEventListener('toolactivated', resolve, { once: true }),
    );
    const viaTools = outcome(tools.callTool('manual', { q: 'y' }));
    await activated;
    manual.remove();
    const beforeTools = await viaTools;

    const fill = document.getElementById('fill') as HTMLFormElement;
    fill.addEventListener('submit', (event: any) => {
      event.preventDefault();
      event.respondWith(wait(50).then(() => 'completed'));
      fill.remove();
    });
    const fillTool = (await mc.getTools()).find((entry: { name: string }) => entry.name === 'fill');
    const after = await outcome(mc.executeTool(fillTool, { t: 'z' }));
    await wait(50);
    const listed = (await mc.getTools()).map((entry: { name: string }) => entry.name);
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
  await page.waitForTimeout(200);
  expect(requested.some((path) => path.includes('polyfill-declarative'))).toBe(false);
});
