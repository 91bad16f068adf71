// Plain Node ESM against the installed tarballs: the host's API, the lowering and the
// Playwright helper (which imports nothing at run time), no loader.
import { createHost } from '@toolwire/host';
import { lower } from '@toolwire/lowering';
import { WebMCPError, webmcp } from '@toolwire/playwright';
import { createToolClient } from '@toolwire/protocol';

const host = await createHost({ port: 0 });
const out = {
  createHost: typeof createHost,
  createToolClient: typeof createToolClient,
  url: /^ws:\/\/127\.0\.0\.1:\d+\//.test(host.url),
  lowered: await lower(new Date(0)),
  webmcp: [typeof webmcp, new WebMCPError('tool_not_found', 'x', 'polyfill').code],
};
await host.close();
console.log(JSON.stringify(out));
