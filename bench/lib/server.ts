/** Serving the bench pages: free ports and the repository's Vite dev server, cross-origin isolated. */
import { createServer as createNetServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createServer, type InlineConfig, type ViteDevServer } from 'vite';

/** e2e/vite.config.ts: the repository root, served as is. */
export const VITE_CONFIG = fileURLToPath(new URL('../../e2e/vite.config.ts', import.meta.url));

/** Cross-origin isolation: the page's performance.now() in 5 us steps instead of 100 us. */
export const CROSS_ORIGIN_ISOLATION: Record<string, string> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** A port nothing listens on right now (the dev server then binds it with strictPort). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the Vite dev server on a free port of 127.0.0.1, sending the cross-origin isolation
 * headers plus `headers`, and waits until it listens.
 */
export async function startViteServer(
  options: { headers?: Record<string, string>; optimizeDeps?: InlineConfig['optimizeDeps'] } = {},
): Promise<{ server: ViteDevServer; port: number }> {
  // Another checkout's bench or suite may bind the free port before we do: take another.
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const server = await createServer({
      configFile: VITE_CONFIG,
      logLevel: 'error',
      server: {
        port,
        strictPort: true,
        host: '127.0.0.1',
        headers: { ...CROSS_ORIGIN_ISOLATION, ...options.headers },
      },
      ...(options.optimizeDeps ? { optimizeDeps: options.optimizeDeps } : {}),
    });
    try {
      await server.listen();
      return { server, port };
    } catch (error) {
      await server.close();
      if (attempt >= 5 || !String(error).includes('already in use')) throw error;
    }
  }
}
