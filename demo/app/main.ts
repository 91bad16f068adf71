/**
 * The demo app (issue 8): a notes app whose tools an agent can use, a calendar widget from
 * another origin whose tools coalesce into it, and two inspectors: the session panel (what the
 * host asked, what the page answered) and the agent view (the catalog as the host sees it).
 *
 * Open it at the address `pnpm demo` (or `toolwire host --page`) prints: `#toolwire=<ws address
 * ?pair=CODE>` asks to pair it with that host (one click). It serves its tools with the
 * read-write guard.
 */
import type { Session } from '../../packages/endpoint/src/index.js';
import { pairFromLink } from '../../packages/endpoint/src/index.js';
import { install } from '../../packages/polyfill/src/index.js';
import { AgentView, readCatalog } from './agent-view.js';
import { element } from './format.js';
import { NoteStore, registerNoteTools } from './notes.js';
import { SessionPanel } from './session-panel.js';

const origins =
  typeof __TOOLWIRE_DEMO_ORIGINS__ === 'undefined'
    ? { A: location.origin, B: 'http://127.0.0.1:5174' }
    : __TOOLWIRE_DEMO_ORIGINS__;

const installation = install();
const store = new NoteStore();
const list = document.getElementById('notes') as HTMLUListElement;
const empty = document.getElementById('notes-empty') as HTMLParagraphElement;
const cloud = document.getElementById('tag-cloud') as HTMLDivElement;
const timeFormat = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' });

/** The notes the last search found, highlighted until the next search. */
let matches = new Set<number>();

function renderNotes(): void {
  list.replaceChildren(
    ...store.notes.map((note) => {
      const text = element('span', 'note-text', note.text.replace(/\s*#[\p{L}\p{N}_-]+/gu, ''));
      text.dataset.noteText = note.text;
      const item = element(
        'li',
        '',
        text,
        ...note.tags.map((tag) => element('span', 'tag', `#${tag}`)),
        element('time', 'note-time', timeFormat.format(new Date(note.at))),
      );
      item.classList.toggle('match', matches.has(note.id));
      return item;
    }),
  );
  empty.hidden = store.notes.length > 0;
  cloud.replaceChildren(
    ...[...store.tagCounts()].map(([tag, count]) =>
      element('span', 'tag', `#${tag} `, element('b', '', String(count))),
    ),
  );
}
store.addEventListener('change', renderNotes);
renderNotes();

// The form adds notes as a user would; the tour drives it with ui.perform_action.
const form = document.getElementById('add-form') as HTMLFormElement;
const input = document.getElementById('note-text') as HTMLInputElement;
form.addEventListener('submit', (event) => {
  event.preventDefault();
  const value = input.value.trim();
  if (!value) return;
  store.add(value);
  input.value = '';
});

// The search form: a user's search, and the notes.search tool declared by its attributes. For
// an agent's call (event.agentInvoked) the matches are also the tool's result (respondWith).
const searchForm = document.getElementById('search-form') as HTMLFormElement;
const searchResult = document.getElementById('search-result') as HTMLParagraphElement;
type AgentSubmit = SubmitEvent & {
  agentInvoked?: boolean;
  respondWith?(answer: Promise<unknown>): void;
};
searchForm.addEventListener('submit', (event: AgentSubmit) => {
  event.preventDefault();
  const data = new FormData(searchForm);
  const order = data.get('order') === 'oldest' ? 'oldest' : 'newest';
  const found = store.search(String(data.get('text') ?? ''), String(data.get('tag') ?? ''), order);
  matches = new Set(found.map((note) => note.id));
  renderNotes();
  searchResult.hidden = false;
  searchResult.textContent = `${found.length} of ${store.notes.length} notes matched${event.agentInvoked ? ' (searched by the agent)' : ''}.`;
  if (event.agentInvoked) {
    event.respondWith?.(
      Promise.resolve({
        count: found.length,
        notes: found.map(({ text, at, tags }) => ({ text, at, tags })),
      }),
    );
  }
});

await registerNoteTools(installation, store);

// The calendar widget, from origin B; allow="tools" lets its tools coalesce into this page.
const calendar = document.getElementById('calendar') as HTMLIFrameElement;
calendar.src = `${origins.B}/app/calendar.html`;
(document.getElementById('calendar-embed') as HTMLElement).textContent =
  `<iframe allow="tools" src="${origins.B}/app/calendar.html">`;
(document.getElementById('frames-link') as HTMLAnchorElement).href = '../frames/';

const panel = new SessionPanel();
const agentView = new AgentView();

async function originsByName(): Promise<Map<string, string>> {
  const handles = await installation.tools.getTools({ agentOnly: true });
  return new Map(handles.map((tool) => [tool.name, tool.origin]));
}

function followCatalog(session: Session): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;
  const refresh = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      const [catalog, byName] = await Promise.all([readCatalog(session), originsByName()]);
      agentView.render(catalog, byName, location.origin);
      panel.setRevision(catalog.revision, catalog.availabilityRevision, catalog.tools.length);
      document.body.dataset.catalogTools = String(catalog.tools.length);
    } finally {
      running = false;
      if (again) {
        again = false;
        void refresh();
      }
    }
  };
  // After the session's own refresh (it re-reads the page's tools on toolchange).
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), 250);
  };
  installation.tools.addEventListener('toolchange', soon);
  session.addEventListener('open', soon);
  session.addEventListener('response', (event) => {
    if ((event as CustomEvent<{ type?: string }>).detail?.type === 'tool.catalog') soon();
  });
  soon();
}

// Pairing as every page does it (issue 13): a link's code, after the person here says yes in
// the endpoint's prompt; a reload of this tab reconnects with the credential it kept.
panel.setState('unpaired');
// The hint's command, for this very page: its origin allowed (what `toolwire pair` without
// --page needs), the grant the app's write tools need, and the link to open (issue 15).
const here = new URL(location.href);
here.hash = '';
(document.getElementById('unpaired-command') as HTMLElement).textContent =
  `pnpm toolwire host --allow-origin ${here.origin} --max-tool-policy write --page ${here.href}`;
void pairFromLink({ guard: 'read-write' }).then((session) => {
  if (!session) return;
  const host = new URL(session.address);
  panel.attach(session, `${host.protocol}//${host.host}${host.pathname}`);
  followCatalog(session);
  // For the tour and tests: expand one tool's schemas in the agent view.
  Object.assign(window, { toolwireDemo: { session, agentView, store } });
});
document.body.dataset.ready = 'true';
