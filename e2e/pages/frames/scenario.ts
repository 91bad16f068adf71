/**
 * A frame tree described as data, so one page builds every e2e scenario: the page reads its
 * own node from the URL fragment, installs the polyfill, registers its tools, and embeds its
 * children (same origin, or the other of localhost / 127.0.0.1 on the same port).
 */
import { install } from '../../../packages/polyfill/src/index.js';

export interface ToolSpec {
  name: string;
  exposedTo?: string[];
  /** Give it naturalLanguageProperties (agent-exposed). */
  agent?: boolean;
  /** Register through document.modelContext instead of toolManager. */
  spec?: boolean;
  specExposedTo?: string[];
  /** The modelContext tool's inputSchema. */
  inputSchema?: object;
}

export interface FrameSpec {
  id: string;
  /** 'same': this page's origin; 'cross': the other loopback name. */
  origin?: 'same' | 'cross';
  allow?: string;
  tools?: ToolSpec[];
  frames?: FrameSpec[];
}

function otherOrigin(): string {
  const url = new URL(location.href);
  url.hostname = url.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  return url.origin;
}

export function frameUrl(spec: FrameSpec): string {
  const base = spec.origin === 'cross' ? otherOrigin() : location.origin;
  return `${base}/e2e/pages/frames/frame.html#${encodeURIComponent(JSON.stringify(spec))}`;
}

/** Runs this document's part of the scenario; resolves when its tools are registered. */
export async function runNode(spec: FrameSpec): Promise<void> {
  const { toolManager } = install();
  const w = window as any;
  w.frameLog = [];
  w.registrations = {};
  for (const tool of spec.tools ?? []) {
    const controller = new AbortController();
    w.registrations[tool.name] = controller;
    const execute = (input: any, context: any) => {
      w.frameLog.push({ tool: tool.name, caller: context?.caller?.origin ?? null });
      // `progress`: the reports to make first, each an argument list for reportProgress.
      for (const args of Array.isArray(input?.progress) ? input.progress : [])
        context?.reportProgress?.(...args);
      return new Promise((resolve, reject) => {
        const signal: AbortSignal | undefined = context?.signal;
        if (input?.hang) {
          signal?.addEventListener('abort', () => {
            // When the tool's signal fired, on a clock the other frames share.
            w.abortedAt = performance.timeOrigin + performance.now();
            // A report after the call ended: it must reach no caller.
            context?.reportProgress?.(1e9, 1e9, 'after the abort');
            w.frameLog.push({ aborted: tool.name, reason: (signal.reason as DOMException)?.name });
            reject(signal.reason);
          });
          return;
        }
        resolve({ from: spec.id, tool: tool.name, echo: input, blob: input?.blob instanceof Blob });
      });
    };
    if (tool.spec) {
      await (document as any).modelContext.registerTool(
        {
          name: tool.name,
          description: `${tool.name} in ${spec.id}`,
          ...(tool.inputSchema ? { inputSchema: tool.inputSchema } : {}),
          execute,
        },
        {
          signal: controller.signal,
          ...(tool.specExposedTo ? { exposedTo: tool.specExposedTo } : {}),
        },
      );
    } else {
      await toolManager.register(
        {
          name: tool.name,
          ...(tool.exposedTo ? { exposedTo: tool.exposedTo } : {}),
          ...(tool.agent
            ? { naturalLanguageProperties: { description: `${tool.name} in ${spec.id}` } }
            : {}),
          execute,
        },
        { signal: controller.signal },
      );
    }
  }
  const toolcancels: string[] = [];
  (document as any).modelContext?.addEventListener?.('toolcancel', (event: any) =>
    toolcancels.push(event.toolName),
  );
  toolManager.addEventListener('toolcancel', (event: any) => toolcancels.push(event.toolName));
  w.toolcancels = toolcancels;
  for (const child of spec.frames ?? []) {
    const iframe = document.createElement('iframe');
    iframe.id = child.id;
    if (child.allow !== undefined) iframe.setAttribute('allow', child.allow);
    iframe.src = frameUrl(child);
    document.body.append(iframe);
  }
  w.frameReady = true;
}

/** What the tests ask the top page: the sorted names one view lists. */
export interface NamesQuery {
  view: 'tools' | 'of' | 'modelContext';
  agentOnly?: boolean;
  /** For 'of': '#id' (an iframe element here) or 'frames:N' (the previous window's Nth frame). */
  path?: string[];
  fromOrigins?: string[];
}

async function namesOf(query: NamesQuery): Promise<string[]> {
  const w = window as any;
  let list: { name: string }[];
  if (query.view === 'tools')
    list = await w.tools.getTools({ agentOnly: query.agentOnly === true });
  else if (query.view === 'modelContext') {
    list = await (document as any).modelContext.getTools(
      query.fromOrigins ? { fromOrigins: query.fromOrigins } : {},
    );
  } else {
    let target: any = w.tools;
    let previous: Window | undefined;
    for (const step of query.path ?? []) {
      const next: Window | HTMLIFrameElement | null = step.startsWith('#')
        ? (document.getElementById(step.slice(1)) as HTMLIFrameElement | null)
        : ((previous?.frames[Number(step.slice('frames:'.length))] as Window | undefined) ?? null);
      if (!next) throw new Error(`no frame at ${step}`);
      previous = next instanceof HTMLIFrameElement ? (next.contentWindow as Window) : next;
      target = target.of(next);
    }
    list = await target.getTools({ agentOnly: query.agentOnly === true });
  }
  return list.map((tool) => tool.name).sort();
}

(window as any).namesOf = namesOf;

export function specFromHash(): FrameSpec {
  return JSON.parse(decodeURIComponent(location.hash.slice(1)) || '{"id":"top"}') as FrameSpec;
}
