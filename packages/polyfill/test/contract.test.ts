import { describe, it } from 'vitest';
import { CASES } from './contract/cases.js';
import { freshInstall } from './helpers.js';

// The contract suite under happy-dom, against the polyfill: a fresh window per case.
describe('contract (happy-dom, polyfill)', () => {
  for (const contractCase of CASES) {
    it(contractCase.name, async () => {
      const { win, toolManager, tools } = freshInstall('https://contract.example/');
      const controller = new AbortController();
      try {
        await contractCase.run({
          win: win as never,
          mc: (win.document as unknown as { modelContext: unknown }).modelContext,
          toolManager,
          tools,
          native: false,
          signal: controller.signal,
        });
      } finally {
        controller.abort();
        await win.happyDOM.close();
      }
    });
  }
});
