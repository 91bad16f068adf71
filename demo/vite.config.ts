import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InlineConfig } from 'vite';
import { defineConfig } from 'vite';
import { sourceResolve } from '../scripts/source-condition.js';
import { endpointVersionDefine } from '../scripts/version-define.js';

/**
 * The browser demo's Vite config. The frames page needs two origins, so `demo/serve.ts` starts
 * this config twice: origin A (`http://localhost:PORT_A`, the top page) and origin B
 * (`http://127.0.0.1:PORT_B`, the cross-origin frames). `vite --config demo/vite.config.ts`
 * alone serves one of them, which is enough for same-origin pages only.
 */
export const DEMO_ROOT = fileURLToPath(new URL('.', import.meta.url));
const REPO_ROOT = join(DEMO_ROOT, '..');

export const DEFAULT_PORT_A = 5173;
export const DEFAULT_PORT_B = 5174;

export function demoPorts(env: NodeJS.ProcessEnv = process.env): { a: number; b: number } {
  return {
    a: Number(env.TOOLWIRE_DEMO_PORT_A ?? DEFAULT_PORT_A),
    b: Number(env.TOOLWIRE_DEMO_PORT_B ?? DEFAULT_PORT_B),
  };
}

export function demoOrigins(ports = demoPorts()): { A: string; B: string } {
  return { A: `http://localhost:${ports.a}`, B: `http://127.0.0.1:${ports.b}` };
}

export interface DemoServerOptions {
  /** Which of the two origins this server is. */
  which: 'A' | 'B';
  ports?: { a: number; b: number };
  /** Live reload while editing (off for screenshots: a reload mid-run would blank the matrix). */
  watch?: boolean;
}

export function demoConfig({ which, ports = demoPorts(), watch = true }: DemoServerOptions) {
  const origins = demoOrigins(ports);
  return {
    root: DEMO_ROOT,
    configFile: false,
    clearScreen: false,
    // Workspace packages from their sources (the `@toolwire/source` export condition).
    ...sourceResolve,
    logLevel: 'warn',
    // Two servers on one root must not share the dependency optimizer's cache directory.
    cacheDir: join(REPO_ROOT, 'node_modules', '.vite', `demo-${which.toLowerCase()}`),
    define: { ...endpointVersionDefine, __TOOLWIRE_DEMO_ORIGINS__: JSON.stringify(origins) },
    server: {
      host: which === 'A' ? 'localhost' : '127.0.0.1',
      port: which === 'A' ? ports.a : ports.b,
      strictPort: true,
      // Pages import the polyfill's source from ../packages/polyfill/src.
      fs: { allow: [REPO_ROOT] },
      hmr: watch,
      watch: watch ? {} : null,
    },
    // Bundled once at startup, no discovery mid-run (a discovery reloads the page).
    optimizeDeps: {
      include: ['ajv/dist/2020.js', 'ajv-formats', 'fflate', '@cfworker/json-schema'],
      noDiscovery: true,
    },
  } satisfies InlineConfig;
}

export default defineConfig(demoConfig({ which: 'A' }));
