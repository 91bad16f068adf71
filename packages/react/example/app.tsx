import { useCallback, useState } from 'react';
import { Counter } from './counter.js';

/** The page: a switch that mounts and unmounts the counter (and with it, its tools), a log. */
export function App() {
  const [shown, setShown] = useState(true);
  const [lines, setLines] = useState<string[]>([]);
  const log = useCallback((line: string) => setLines((previous) => [...previous, line]), []);
  return (
    <main>
      <h1>useTool example</h1>
      <p>
        The counter registers <code>counter.get</code>, <code>counter.add</code> and{' '}
        <code>counter.add_slowly</code> while it is shown. Try{' '}
        <code>await tools.callTool('counter.add', {'{ by: 2 }'})</code> in the console.
      </p>
      <label>
        <input
          type="checkbox"
          data-testid="shown"
          checked={shown}
          onChange={(event) => setShown(event.target.checked)}
        />{' '}
        show the counter
      </label>
      {shown ? <Counter log={log} /> : <p data-testid="hidden">The counter is unmounted.</p>}
      <ol data-testid="log">
        {lines.map((line, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the log only grows; a line's index is its identity.
          <li key={index}>{line}</li>
        ))}
      </ol>
    </main>
  );
}
