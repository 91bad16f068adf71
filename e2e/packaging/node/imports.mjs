// Plain Node ESM against the installed tarballs: the host's API and the lowering, no loader.
import { createHost } from '@toolwire/host';
import { lower } from '@toolwire/lowering';
import { createToolClient } from '@toolwire/protocol';

const host = await createHost({ port: 0 });
const out = {
  createHost: typeof createHost,
  createToolClient: typeof createToolClient,
  url: /^ws:\/\/127\.0\.0\.1:\d+\//.test(host.url),
  lowered: await lower(new Date(0)),
};
await host.close();
console.log(JSON.stringify(out));
