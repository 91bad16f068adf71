import { expect, type Page, test } from '@playwright/test';

// The built-in ui.* tools in real Chromium, on a real form, through a real createToolBridge:
// real layout (bounds), real computed style (hidden nodes), real activation behaviour (the
// checkbox toggles, the submit button submits) and the page's own listeners seeing the events.

declare global {
  interface Window {
    toolwireBuiltins: {
      call(
        toolId: string,
        args?: unknown,
        after?: unknown,
      ): Promise<{ type: string; payload: any }>;
      events: Record<string, number>;
    };
  }
}

async function call(page: Page, toolId: string, args: unknown = {}, after?: unknown) {
  return page.evaluate(
    ([id, input, evidence]) => window.toolwireBuiltins.call(id as string, input, evidence),
    [toolId, args, after] as const,
  );
}

/** Calls a tool that must succeed; returns its result (and the whole outcome). */
async function succeed(page: Page, toolId: string, args: unknown = {}, after?: unknown) {
  const { type, payload } = await call(page, toolId, args, after);
  expect(type, JSON.stringify(payload)).toBe('tool.result');
  return payload as { result: any; evidence: any; message: string | null };
}

async function referenceFor(page: Page, query: Record<string, unknown>) {
  const { result } = await succeed(page, 'ui.query_nodes', query);
  expect(result.count, JSON.stringify(query)).toBe(1);
  return result.nodes[0].reference;
}

function nodesOf(root: any): any[] {
  return [root, ...(root.children ?? []).flatMap(nodesOf)];
}

test.beforeEach(async ({ page }) => {
  await page.goto('/e2e/pages/endpoint/builtins.html');
  await expect(page.locator('#status')).toHaveText('ready');
});

test('fills and submits a real form: query, setText, select, check, tap, then read the result', async ({
  page,
}) => {
  const name = await referenceFor(page, { automationId: 'name' });
  const filledName = await succeed(page, 'ui.perform_action', {
    reference: name,
    action: 'setText',
    text: 'Ada Lovelace',
  });
  expect(filledName.result).toMatchObject({ performed: 'setText', value: 'Ada Lovelace' });

  const email = await referenceFor(page, { role: 'textbox', text: 'email' });
  await succeed(page, 'ui.perform_action', {
    reference: email,
    action: 'setText',
    text: 'ada@example.com',
  });

  const plan = await referenceFor(page, { role: 'combobox' });
  const selected = await succeed(page, 'ui.perform_action', {
    reference: plan,
    action: 'select',
    value: 'Pro',
  });
  expect(selected.result.value).toBe('pro');

  const subscribe = await referenceFor(page, { role: 'checkbox', text: 'subscribe' });
  const checked = await succeed(page, 'ui.perform_action', {
    reference: subscribe,
    action: 'check',
  });
  expect(checked.result.checked).toBe(true);

  const submit = await referenceFor(page, { role: 'button', text: 'submit' });
  const tapped = await succeed(
    page,
    'ui.perform_action',
    { reference: submit, action: 'tap' },
    { include: ['visualTree'] },
  );
  expect(tapped.result.revision).toBeGreaterThan(submit.revision);

  // The DOM, read directly.
  await expect(page.locator('[data-testid="result"] li')).toHaveText([
    'name: Ada Lovelace',
    'email: ada@example.com',
    'plan: pro',
    'subscribe: yes',
  ]);
  await expect(page.locator('#name')).toHaveValue('Ada Lovelace');
  await expect(page.locator('#subscribe')).toBeChecked();

  // The same DOM through the `after` evidence and through ui.get_visual_tree.
  const evidence = tapped.evidence.visualTree;
  expect(evidence).toMatchObject({ toolId: 'ui.get_visual_tree', success: true });
  for (const tree of [evidence.result, (await succeed(page, 'ui.get_visual_tree')).result]) {
    const nodes = nodesOf(tree.root);
    const submitted = nodes.find((node) => node.role === 'list' && node.name === 'Submitted');
    expect(
      submitted.children.map((node: any) => [node.role, node.automationId, node.text]),
    ).toEqual([
      ['listitem', 'submitted-name', 'name: Ada Lovelace'],
      ['listitem', 'submitted-email', 'email: ada@example.com'],
      ['listitem', 'submitted-plan', 'plan: pro'],
      ['listitem', 'submitted-subscribe', 'subscribe: yes'],
    ]);
    expect(nodes.find((node) => node.automationId === 'name')).toMatchObject({
      role: 'textbox',
      name: 'Name',
      value: 'Ada Lovelace',
    });
    expect(nodes.find((node) => node.automationId === 'subscribe')).toMatchObject({
      role: 'checkbox',
      checked: true,
    });
    const options = nodes.find((node) => node.automationId === 'plan').children;
    expect(options.find((node: any) => node.selected)).toMatchObject({ name: 'Pro' });
  }

  // The page's own listeners saw the events a user would cause, once each.
  const events = await page.evaluate(() => window.toolwireBuiltins.events);
  expect(events).toMatchObject({
    'name:input': 1,
    'name:change': 1,
    'email:input': 1,
    'email:change': 1,
    'plan:input': 1,
    'plan:change': 1,
    'subscribe:click': 1,
    'subscribe:input': 1,
    'subscribe:change': 1,
    'submit:click': 1,
  });
});

test('real layout and computed style: bounds, display:none and visibility:hidden', async ({
  page,
}) => {
  const { result: tree } = await succeed(page, 'ui.get_visual_tree');
  const nodes = nodesOf(tree.root);
  const submit = nodes.find((node) => node.automationId === 'submit');
  const box = await page.getByTestId('submit').boundingBox();
  expect(box).not.toBeNull();
  expect(submit.bounds.width).toBeGreaterThan(0);
  expect(submit.bounds.height).toBeGreaterThan(0);
  expect(Math.abs(submit.bounds.x - (box?.x ?? 0))).toBeLessThanOrEqual(1);
  expect(Math.abs(submit.bounds.y - (box?.y ?? 0))).toBeLessThanOrEqual(1);
  const ids = nodes.map((node) => node.automationId);
  expect(ids).not.toContain('collapsed-button');
  expect(ids).not.toContain('ghost-button');
  const { result: hidden } = await succeed(page, 'ui.query_nodes', {
    selector: 'button',
    includeHidden: true,
  });
  expect(hidden.nodes.map((node: any) => [node.automationId, node.visible])).toEqual([
    ['submit', true],
    ['collapsed-button', false],
    ['ghost-button', false],
  ]);
  expect(tree.snapshotId).toMatch(/^web:\d+:[0-9a-f]{8}$/);
});

test('a reference to a node the page re-rendered is stale, and says what to call', async ({
  page,
}) => {
  const name = await referenceFor(page, { automationId: 'name' });
  await page.evaluate(() => {
    const input = document.getElementById('name') as HTMLInputElement;
    input.replaceWith(input.cloneNode(true));
  });
  const { type, payload } = await call(page, 'ui.perform_action', {
    reference: name,
    action: 'setText',
    text: 'x',
  });
  expect(type).toBe('tool.error');
  expect(payload).toMatchObject({
    code: 'stale_node_reference',
    retryable: false,
    details: { refreshWith: 'ui.query_nodes', nodeId: name.nodeId },
  });
  const fresh = await referenceFor(page, { automationId: 'name' });
  expect(fresh.nodeId).not.toBe(name.nodeId);
  await succeed(page, 'ui.perform_action', { reference: fresh, action: 'setText', text: 'ok' });
  await expect(page.locator('#name')).toHaveValue('ok');
});

test('the screenshot tool is unavailable without a capture provider', async ({ page }) => {
  const { type, payload } = await call(page, 'ui.get_screenshot');
  expect(type).toBe('tool.error');
  expect(payload).toMatchObject({
    code: 'screenshot_unavailable',
    details: { remediation: expect.stringContaining('captureProvider') },
  });
});
