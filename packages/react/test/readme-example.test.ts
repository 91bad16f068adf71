// @vitest-environment happy-dom
/**
 * The README's "One component, start to finish" (docs/react.md includes it): its tsx block is
 * example/cart.tsx, byte for byte, and that component does what the README says, with the
 * polyfill installed as the example installs it. e2e/react.e2e.ts runs the same file in
 * Chromium.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { act, createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { Cart } from '../example/cart.js';

const README = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
const section = README.slice(README.indexOf('## One component, start to finish'));
const block = (language: string) =>
  new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1] ?? '';

type PageTools = {
  getTools(options?: { agentOnly?: boolean }): Promise<{ name: string; inputSchema: unknown }[]>;
  callTool(name: string, input: unknown): Promise<unknown>;
};
const tools = () => (globalThis as unknown as { tools: PageTools }).tools;

afterEach(() => {
  document.body.innerHTML = '';
});

describe("the README's React example", () => {
  it('is example/cart.tsx as it is', () => {
    const file = readFileSync(join(import.meta.dirname, '..', 'example', 'cart.tsx'), 'utf8');
    expect(block('tsx')).not.toBe('');
    expect(block('tsx')).toBe(file);
  });

  it('shows agents the schema the README prints, and the page shows what an agent did', async () => {
    const container = document.createElement('div');
    document.body.append(container);
    const root = createRoot(container);
    await act(async () => root.render(createElement(Cart)));
    const [listed] = await tools().getTools({ agentOnly: true });
    expect(listed?.name).toBe('cart.add');
    expect(listed?.inputSchema).toEqual(JSON.parse(block('json')));

    // What the README says a call does: a line on the page, the answer, and a refusal.
    expect(container.querySelectorAll('li')).toHaveLength(0);
    let answer: unknown;
    await act(async () => {
      answer = await tools().callTool('cart.add', { sku: 'A-1', qty: 2 });
    });
    expect(answer).toEqual({ sku: 'A-1', inCart: 2 });
    expect(container.querySelector('li')?.textContent).toBe('2 × A-1');
    // The tool reads the state on screen: a second call adds to it.
    await act(async () => {
      answer = await tools().callTool('cart.add', { sku: 'A-1' });
    });
    expect(answer).toEqual({ sku: 'A-1', inCart: 3 });
    expect(container.querySelector('li')?.textContent).toBe('3 × A-1');
    const refused = await tools()
      .callTool('cart.add', { qty: 0 })
      .then(
        () => undefined,
        (error: { name: string; toolCode: string }) => error,
      );
    expect(refused).toMatchObject({ name: 'DataError', toolCode: 'tool_arguments_schema_invalid' });
    expect(container.querySelectorAll('li')).toHaveLength(1);
    await act(async () => root.unmount());
    expect(await tools().getTools()).toEqual([]);
  });
});
