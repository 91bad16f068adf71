/**
 * `pnpm demo:frames`: the browser demo on two origins, one command (issue 5).
 * Origin A, http://localhost:5173, serves the top page; origin B, http://127.0.0.1:5174, the
 * cross-origin frames. Ports: TOOLWIRE_DEMO_PORT_A / TOOLWIRE_DEMO_PORT_B (0: any free port).
 * Without them, a default port that is taken gives way to a free one, and the addresses
 * printed say which. The pages learn both origins from the server (demo/vite.config.ts).
 */
import { createServer as createNetServer } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { ViteDevServer } from 'vite';
import { createServer } from 'vite';
import { DEFAULT_PORT_A, DEFAULT_PORT_B, demoConfig, demoOrigins } from './vite.config.js';

export interface DemoServers {
  originA: string;
  originB: string;
  framesUrl: string;
  /** One line for each default port that was taken, naming the port used instead. */
  moved: string[];
  close(): Promise<void>;
}

/** A port to serve on; `flexible`: a default that gives way to a free port when taken. */
interface Wanted {
  port: number;
  flexible: boolean;
}

const HOSTS = { A: 'localhost', B: '127.0.0.1' } as const;

function wantedPorts(env: NodeJS.ProcessEnv): { a: Wanted; b: Wanted } {
  const wanted = (value: string | undefined, fallback: number): Wanted =>
    value === undefined || value === ''
      ? { port: fallback, flexible: true }
      : { port: Number(value), flexible: false };
  return {
    a: wanted(env.TOOLWIRE_DEMO_PORT_A, DEFAULT_PORT_A),
    b: wanted(env.TOOLWIRE_DEMO_PORT_B, DEFAULT_PORT_B),
  };
}

/** Binds `port` on `host` and lets it go: the port bound (0 asks for a free one), or undefined when taken. */
function probe(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(undefined);
      else reject(error);
    });
    server.listen(port, host, () => {
      const bound = (server.address() as { port: number }).port;
      server.close(() => resolve(bound));
    });
  });
}

async function choosePort(
  wanted: Wanted,
  which: 'A' | 'B',
  avoid: number | undefined,
  moved: string[],
): Promise<number> {
  const host = HOSTS[which];
  if (wanted.port !== 0 && !wanted.flexible) return wanted.port;
  if (wanted.port !== 0 && wanted.port !== avoid && (await probe(wanted.port, host)) !== undefined)
    return wanted.port;
  for (;;) {
    const free = await probe(0, host);
    if (free === undefined || free === avoid) continue;
    if (wanted.port !== 0)
      moved.push(`port ${wanted.port} is taken: origin ${which} is on ${free}`);
    return free;
  }
}

/** Vite's strictPort refusal (or the socket's own), when a port was taken between probe and listen. */
const taken = (error: unknown) =>
  /EADDRINUSE|already in use/.test(
    `${(error as Error)?.message} ${(error as NodeJS.ErrnoException)?.code}`,
  );

/**
 * Serves the demo on its two origins. `ports`: exactly these (0: any free port); without it,
 * TOOLWIRE_DEMO_PORT_A/_B, else 5173/5174 or, when taken, free ports (see `moved`).
 */
export async function startDemoServers(
  options: { ports?: { a: number; b: number }; watch?: boolean } = {},
): Promise<DemoServers> {
  const wanted = options.ports
    ? {
        a: { port: options.ports.a, flexible: false },
        b: { port: options.ports.b, flexible: false },
      }
    : wantedPorts(process.env);
  // A port chosen here can be taken by someone else before Vite listens on it (two demos or
  // test runs starting at once): then choose again. A port that was asked for is not retried.
  const chosen = [wanted.a, wanted.b].some((want) => want.port === 0 || want.flexible);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(wanted, options.watch);
    } catch (error) {
      if (!chosen || !taken(error) || attempt >= 5) throw error;
    }
  }
}

async function startOnce(
  wanted: { a: Wanted; b: Wanted },
  watch: boolean | undefined,
): Promise<DemoServers> {
  const moved: string[] = [];
  const a = await choosePort(wanted.a, 'A', undefined, moved);
  const ports = { a, b: await choosePort(wanted.b, 'B', a, moved) };
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
      const server = await createServer(demoConfig({ which, ports, watch }));
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
    moved,
    close,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const servers = await startDemoServers();
    process.stdout.write(
      [
        ...servers.moved,
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
