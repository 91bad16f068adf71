// Runs the polyfill contract cases inside a real page. Native WebMCP (when the browser has it)
// is detected before install(), which then layers toolManager/tools on top of it.
import { install } from '../../packages/polyfill/src/index.js';
import { CASES } from '../../packages/polyfill/test/contract/cases.js';

const native = (document as unknown as { modelContext?: unknown }).modelContext !== undefined;
const { toolManager, tools } = install();

async function runContractCase(name: string): Promise<{ ok: boolean; error?: string }> {
  const contractCase = CASES.find((entry) => entry.name === name);
  if (!contractCase) return { ok: false, error: `no case named ${name}` };
  const controller = new AbortController();
  try {
    await contractCase.run({
      win: window,
      mc: (document as unknown as { modelContext: unknown }).modelContext,
      toolManager,
      tools,
      native,
      signal: controller.signal,
    });
    return { ok: true };
  } catch (error) {
    return {
      ok: false,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
  } finally {
    controller.abort();
  }
}

Object.assign(window, { runContractCase, contractInfo: { native } });
(document.getElementById('status') as HTMLElement).textContent = 'ready';
