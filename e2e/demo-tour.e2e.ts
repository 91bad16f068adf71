import { spawn } from 'node:child_process';
import { expect, test } from '@playwright/test';

// `pnpm demo` without a display runs a scripted tour: the whole chain from a host in Node to
// the notes page in headless Chromium. Run as a process (the build is done by test:e2e), it
// must exit 0 and its transcript must hold each expected result.

test('the scripted tour runs end to end and exits 0 with --once', async () => {
  test.setTimeout(120_000);
  const child = spawn('npx', ['tsx', 'demo/tour.ts', '--tour', '--once'], {
    env: {
      ...process.env,
      DISPLAY: '',
      TOOLWIRE_DEMO_PORT_A: '5203',
      TOOLWIRE_DEMO_PORT_B: '5204',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, out).toBe(0);
  expect(out).toContain(
    '"notes.add (write)","notes.due (read)","notes.export (read)","notes.list (read)"',
  );
  expect(out).toContain('{"count":1}');
  expect(out).toContain('"code":"tool_arguments_schema_invalid"');
  expect(out).toMatch(/notes\.due .*->\n {2}\{"before":"2100-01-01T00:00:00\.000Z","count":1\}/);
  expect(out).toContain('{"mimeType":"text/plain","text":"- Buy milk"}');
  expect(out).toContain('{"performed":"tap"}');
  expect(out).toContain('{"count":2}');
  expect(out).toContain('{"success":true,"notes":["Buy milk","Water plants","Call Ada"]}');
  expect(out).toMatch(
    /the page now shows:\n {2}\["Buy milk \(.*\)","Water plants \(.*\)","Call Ada \(.*\)"\]/,
  );
  expect(out).toContain('tour done.');
});
