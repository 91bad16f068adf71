/**
 * The calendar widget: a cross-origin frame (origin B) the notes app embeds with
 * `<iframe allow="tools">`. Its two tools are exposed to the app's origin, so they coalesce
 * into the app's `tools.getTools()` and the endpoint up there serves them to the host. Both use
 * lowered types: `calendar.events` takes a Date and returns a Map keyed by Dates;
 * `calendar.schedule` takes a Date and returns one.
 */
import { install } from '../../packages/polyfill/src/index.js';

interface CalendarEvent {
  at: Date;
  title: string;
}

const origins =
  typeof __TOOLWIRE_DEMO_ORIGINS__ === 'undefined'
    ? { A: 'http://localhost:5173', B: 'http://127.0.0.1:5174' }
    : __TOOLWIRE_DEMO_ORIGINS__;
const DAY = 24 * 60 * 60 * 1000;

/** Today at 00:00 UTC plus `days`, at `hour`:`minute` UTC. */
function dayAt(days: number, hour: number, minute = 0): Date {
  const start = new Date();
  start.setUTCHours(0, 0, 0, 0);
  return new Date(start.getTime() + days * DAY + (hour * 60 + minute) * 60_000);
}

const events: CalendarEvent[] = [
  { at: dayAt(1, 9, 30), title: 'Team standup' },
  { at: dayAt(2, 14), title: 'Dentist' },
  { at: dayAt(5, 18), title: "Ada's birthday dinner" },
];

const list = document.getElementById('events') as HTMLOListElement;
const status = document.getElementById('widget-status') as HTMLParagraphElement;
(document.getElementById('widget-origin') as HTMLElement).textContent = location.host;

const dateFormat = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  timeZone: 'UTC',
});
const timeFormat = new Intl.DateTimeFormat('en-GB', {
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
});

function render(highlight?: CalendarEvent): void {
  events.sort((a, b) => a.at.getTime() - b.at.getTime());
  list.replaceChildren(
    ...events.map((event) => {
      const item = document.createElement('li');
      if (event === highlight) item.className = 'new';
      const when = document.createElement('span');
      when.className = 'when';
      when.textContent = `${dateFormat.format(event.at)} · ${timeFormat.format(event.at)}`;
      const title = document.createElement('span');
      title.textContent = event.title;
      item.append(when, title);
      return item;
    }),
  );
}

const { toolManager } = install();
// Exposed to the app's origin: without it the tools would stay in this frame.
const exposedTo = [origins.A];

await toolManager.register({
  name: 'calendar.events',
  exposedTo,
  naturalLanguageProperties: {
    title: 'Calendar events before',
    description:
      "Lists the calendar widget's events before a date (it arrives in the frame as a Date): a Map from start (a Date) to title, and the frame's origin.",
    annotations: { readOnlyHint: true },
    inputSchema: {
      type: 'object',
      properties: { before: { webType: 'Date' } },
      required: ['before'],
    },
    outputSchema: {
      type: 'object',
      properties: {
        from: { type: 'string', description: 'The origin of the frame that ran the tool.' },
        beforeArrivedAs: { type: 'string' },
        events: { webType: 'Map', keys: { webType: 'Date' }, values: { type: 'string' } },
      },
    },
  },
  execute: ({ before }: { before: Date }) => ({
    from: location.origin,
    beforeArrivedAs: before instanceof Date ? 'Date' : typeof before,
    events: new Map(
      events.filter((event) => event.at < before).map((event) => [event.at, event.title]),
    ),
  }),
});

await toolManager.register({
  name: 'calendar.schedule',
  exposedTo,
  policy: 'write',
  naturalLanguageProperties: {
    title: 'Schedule an event',
    description: 'Adds an event to the calendar widget at a date and time (a Date in the frame).',
    inputSchema: {
      type: 'object',
      properties: { title: { type: 'string', minLength: 1 }, at: { webType: 'Date' } },
      required: ['title', 'at'],
    },
    outputSchema: {
      type: 'object',
      properties: {
        from: { type: 'string' },
        scheduled: { webType: 'Date' },
        count: { type: 'integer' },
      },
    },
  },
  execute: ({ title, at }: { title: string; at: Date }) => {
    const event = { at, title };
    events.push(event);
    render(event);
    return { from: location.origin, scheduled: at, count: events.length };
  },
});

render();
status.textContent = 'calendar.events, calendar.schedule → shared with the app';
document.body.dataset.ready = 'true';
