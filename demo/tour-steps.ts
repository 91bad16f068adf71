/**
 * The scripted tour's steps, shared by `pnpm demo` (demo/tour.ts), the app's screenshot
 * (demo/app/screenshot.ts) and the demo e2e tests. Given the app open in a browser and the host
 * session it paired, it lists the tools, calls the interesting ones and a batch, and writes a
 * transcript a newcomer can follow through `say`.
 */
import type { Page } from '@playwright/test';
import type { HostSession } from '../packages/host/src/index.js';
import type { CallPayload } from '../packages/protocol/src/index.js';

type Say = (line?: string) => void;

const DAY = 24 * 60 * 60 * 1000;

/** Today at 00:00 UTC plus `days`, at `hour` UTC (the calendar widget seeds its events so). */
function dayAt(days: number, hour = 0): Date {
  const start = new Date();
  start.setUTCHours(0, 0, 0, 0);
  return new Date(start.getTime() + days * DAY + hour * 60 * 60 * 1000);
}

const json = (value: unknown) => JSON.stringify(value);

/** Waits until the host's catalog lists the calendar frame's tools (they join a moment later). */
async function waitForFrameTools(session: HostSession, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (session.tools().some((tool) => tool.id === 'calendar.events')) return;
    if (Date.now() > deadline) {
      throw new Error("the calendar frame's tools never reached the host");
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    await session.refresh().catch(() => undefined);
  }
}

export async function runTour(page: Page, session: HostSession, say: Say): Promise<void> {
  let step = 0;
  const heading = (text: string) => say(`\n${++step}. ${text}`);
  const sent = (text: string) => say(`   > ${text}`);
  const got = (value: unknown) => say(`   < ${typeof value === 'string' ? value : json(value)}`);
  const call = async (toolId: string, args: Record<string, unknown>) => {
    sent(`${toolId} ${json(args)}`);
    const result = (await session.call(toolId, args)).result;
    got(result);
    return result;
  };

  await waitForFrameTools(session);
  // Where each tool was registered, as the page knows it (the wire catalog does not say).
  const origins = (await page.evaluate(
    'window.tools.getTools({ agentOnly: true }).then((all) => all.map((t) => [t.name, t.origin]))',
  )) as [string, string][];
  const originOf = new Map(origins);
  const pageOrigin = new URL(page.url()).origin;
  const tools = session.tools();
  heading(
    `The host lists the app's tools (tool.query): ${tools.length} of them, the calendar frame's included`,
  );
  const width = Math.max(...tools.map((tool) => tool.id.length));
  for (const tool of tools) {
    const origin = originOf.get(tool.id);
    const where = tool.id.startsWith('ui.')
      ? 'built into the endpoint'
      : origin === pageOrigin
        ? 'the app'
        : `the calendar frame, ${origin}`;
    say(`     ${tool.id.padEnd(width)}  ${tool.policy.padEnd(8)} ${where}`);
  }

  heading('notes.add: a plain JSON call');
  await call('notes.add', { text: 'Buy milk #errands' });

  heading('notes.add with an empty text: the page checks the arguments before the tool runs');
  sent(`notes.add ${json({ text: '' })}`);
  try {
    await session.call('notes.add', { text: '' });
    got('(no error: unexpected)');
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    got(`error ${code}: ${message}`);
  }

  heading('notes.due: the ISO string arrives in the page as a Date (its schema says webType Date)');
  await call('notes.due', { before: '2100-01-01T00:00:00Z' });

  heading('notes.export: the page returns a Blob; it travels as {mimeType, data (base64)}');
  const exported = (await call('notes.export', {})) as { mimeType: string; data: string };
  say(`     data, decoded: ${json(Buffer.from(exported.data, 'base64').toString('utf8'))}`);

  heading("ui.perform_action: type into the app's form and press Add, as a user would");
  const reference = async (automationId: string) => {
    const found = await session.call('ui.query_nodes', { automationId });
    return (found.result as { nodes: { reference: unknown }[] }).nodes[0]?.reference;
  };
  sent('ui.query_nodes {"automationId":"note-text"} -> a reference to the text field');
  const field = await reference('note-text');
  sent('ui.perform_action {"reference":…,"action":"setText","text":"Water plants #home"}');
  await session.call('ui.perform_action', {
    reference: field,
    action: 'setText',
    text: 'Water plants #home',
  });
  sent('ui.query_nodes {"automationId":"add-button"}, then ui.perform_action {"action":"tap"}');
  const tapped = await session.call('ui.perform_action', {
    reference: await reference('add-button'),
    action: 'tap',
  });
  got({ performed: (tapped.result as { performed: string }).performed });

  heading('notes.tags: the page returns a Map of tag -> count; string keys make it a JSON object');
  await call('notes.tags', {});

  heading(
    "notes.search: a tool declared by the app's search form in HTML (toolname); the arguments fill the form, it submits, the page answers with respondWith",
  );
  await call('notes.search', { text: 'milk', order: 'oldest' });
  const searched = await page.locator('#search-form input[name="text"]').inputValue();
  say(`     the form's search field now reads ${json(searched)}`);

  heading(
    'calendar.events: runs in the cross-origin calendar frame; a Date goes in, a Map keyed by Dates comes out',
  );
  await call('calendar.events', { before: dayAt(3).toISOString() });

  heading('A batch: three calls the page runs in order, one of them in the calendar frame');
  const calls: CallPayload[] = [
    { toolId: 'notes.add', arguments: { text: 'Call Ada #work #errands' } },
    {
      toolId: 'calendar.schedule',
      arguments: { title: 'Call Ada', at: dayAt(1, 16).toISOString() },
    },
    { toolId: 'notes.tags', arguments: {} },
  ];
  for (const item of calls) sent(`${item.toolId} ${json(item.arguments)}`);
  const batch = await session.batch(calls);
  got(`success: ${batch.success}, ${batch.completed} of ${batch.requested} completed`);
  const batchWidth = Math.max(...calls.map((item) => item.toolId.length));
  for (const [index, item] of batch.results.entries()) {
    const entry = item as { toolId?: string; result?: unknown; error?: unknown };
    say(
      `     ${index} ${String(entry.toolId ?? calls[index]?.toolId).padEnd(batchWidth)}  ${json(entry.result ?? entry.error)}`,
    );
  }

  const notes = await page
    .locator('#notes [data-note-text]')
    .evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.noteText ?? ''));
  const events = await page
    .frameLocator('#calendar')
    .locator('#events li')
    .evaluateAll((nodes) =>
      nodes.map((node) => [...node.children].map((child) => child.textContent).join(' ')),
    );
  say('\nThe app now shows:');
  say(`   notes:    ${notes.join(' | ')}`);
  say(`   calendar: ${events.join(' | ')}`);
}
