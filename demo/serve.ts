/**
 * `pnpm demo:frames`: the browser demo on two origins, one command (issue 5).
 * Origin A, http://localhost:5173, serves the top page; origin B, http://127.0.0.1:5174, the
 * cross-origin frames. Ports: TOOLWIRE_DEMO_PORT_A / TOOLWIRE_DEMO_PORT_B.
 */
import { pathToFileURL } from 'node:url';
import type { ViteDevServer } from 'vite';
import { createServer } from 'vite';
import { demoConfig, demoOrigins, demoPorts } from './vite.config.js';

export interface DemoServers {
  originA: string;
  originB: string;
  framesUrl: string;
  close(): Promise<void>;
}

export async function startDemoServers(
  options: { ports?: { a: number; b: number }; watch?: boolean } = {},
): Promise<DemoServers> {
  const ports = options.ports ?? demoPorts();
  const origins = demoOrigins(ports);
  const started: ViteDevServer[] = [];
  const close = async () => {
    await Promise.all(started.map((server) => server.close()));
  };
  // Vite's dev server exits the process on SIGTERM (code 143) once it has closed itself, racing
  // the program that started it: the demo and the tests close every part themselves (Chromium,
  // the host, its state file) and choose the exit code. Its listener goes.
  const sigterm = new Set(process.listeners('SIGTERM'));
  try {
    // One after the other: on two cores, two dependency optimizers at once only slow both.
    for (const which of ['A', 'B'] as const) {
      const server = await createServer(demoConfig({ which, ports, watch: options.watch }));
      started.push(server);
      await server.listen();
    }
  } catch (error) {
    await close();
    throw error;
  } finally {
    for (const listener of process.listeners('SIGTERM')) {
      if (!sigterm.has(listener)) process.off('SIGTERM', listener);
    }
  }
  return {
    originA: origins.A,
    originB: origins.B,
    framesUrl: `${origins.A}/frames/`,
    close,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const servers = await startDemoServers();
    process.stdout.write(
      [
        'toolwire demo, two origins:',
        `  A (top):    ${servers.originA}/`,
        `  B (frames): ${servers.originB}/`,
        `frames page:  ${servers.framesUrl}`,
        'Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
    const stop = () => {
      void servers.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (error) {
    process.stderr.write(`toolwire demo: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
