// A page that uses the globals by name, as a user of polyfill.iife.js or install() writes it.
import '@toolwire/polyfill/global';
import type { DocumentModelContext, Tool, ToolManager, Tools } from '@toolwire/polyfill';
import type { Equal } from './equal.ts';

true satisfies Equal<typeof window.toolManager, ToolManager>;
true satisfies Equal<typeof globalThis.tools, Tools>;
true satisfies Equal<typeof toolManager, ToolManager>;
true satisfies Equal<typeof document.modelContext, DocumentModelContext>;

await toolManager.register({
  name: 'page.title',
  naturalLanguageProperties: { description: "Reads the page's title." },
  execute: () => document.title,
});
const listed: Tool[] = await window.tools.getTools({ agentOnly: true });
await tools.callTool(listed[0] ?? 'page.title', {}, { encoding: 'json' });

await document.modelContext.registerTool({
  name: 'page.lang',
  description: "Reads the page's language.",
  execute: () => document.documentElement.lang,
});
const [first] = await document.modelContext.getTools();
if (first) {
  const text: string | null = await document.modelContext.executeTool(first, {});
  console.log(text, first.origin);
}
document.modelContext.ontoolchange = () => console.log('changed');

// @ts-expect-error -- document.modelContext is the browser's or the polyfill's, never a page's
document.modelContext = new EventTarget() as typeof document.modelContext;

// @ts-expect-error -- the spec's registerTool needs a description
await document.modelContext.registerTool({ name: 'page.none', execute: () => null });

// @ts-expect-error -- callTool takes a name or a Tool handle
await tools.callTool(42);
