import { useTool } from '@toolwire/react';
import { useState } from 'react';

/** A line for the page's log, which outlives the counter (it is kept by the parent). */
export type Log = (line: string) => void;

/**
 * The counter and its three tools. Each `execute` closes over this render's `count`: the hook
 * calls the latest one, so a tool always sees the count on screen.
 */
export function Counter({ log }: { log: Log }) {
  const [count, setCount] = useState(0);

  const read = useTool({
    name: 'counter.get',
    naturalLanguageProperties: {
      description: 'Returns the counter shown on the page.',
      annotations: { readOnlyHint: true },
    },
    execute: () => count,
  });

  const add = useTool({
    name: 'counter.add',
    naturalLanguageProperties: { description: 'Adds `by` (default 1) to the counter.' },
    inputSchema: { type: 'object', properties: { by: { type: 'integer' } } },
    execute: ({ by = 1 }: { by?: number }) => {
      const next = count + by;
      setCount(next);
      log(`counter.add ${by}: ${next}`);
      return next;
    },
  });

  const slow = useTool({
    name: 'counter.add_slowly',
    naturalLanguageProperties: { description: 'Adds `by` to the counter after `ms` milliseconds.' },
    inputSchema: {
      type: 'object',
      properties: { by: { type: 'integer' }, ms: { type: 'integer', minimum: 0 } },
      required: ['by', 'ms'],
    },
    execute: ({ by, ms }: { by: number; ms: number }, { signal }: { signal: AbortSignal }) =>
      new Promise<number>((resolve, reject) => {
        log(`counter.add_slowly ${by}: waiting ${ms} ms`);
        const timer = setTimeout(() => {
          setCount((current) => current + by);
          resolve(by);
        }, ms);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          log(`counter.add_slowly ${by}: its signal aborted (${(signal.reason as Error).name})`);
          reject(signal.reason);
        });
      }),
  });

  return (
    <section className="counter">
      <output data-testid="count">{count}</output>
      <button type="button" onClick={() => setCount(count + 1)}>
        +1
      </button>
      <ul className="statuses">
        {[read, add, slow].map((tool) => (
          <li key={tool.name} data-testid={`status-${tool.name}`} data-status={tool.status}>
            <code>{tool.name}</code> {tool.status}
            {tool.error ? `: ${tool.error.message}` : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}
