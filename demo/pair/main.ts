// A small page whose tools a host can list and call: `pnpm toolwire host --page` prints the
// address that opens it already connected (#toolwire=<ws URL with token>). It serves its tools
// with the read-write guard (the endpoint's default is read-only).
import { connect } from '../../packages/endpoint/src/index.js';
import { install } from '../../packages/polyfill/src/index.js';

const notes: { text: string; at: string }[] = [];
const list = document.getElementById('notes') as HTMLUListElement;
const status = document.getElementById('status') as HTMLParagraphElement;
const { toolManager } = install();

function render(): void {
  list.replaceChildren(
    ...notes.map((note) => {
      const item = document.createElement('li');
      item.textContent = `${note.text} (${note.at})`;
      return item;
    }),
  );
}

await toolManager.register({
  name: 'notes.add',
  naturalLanguageProperties: {
    title: 'Add a note',
    description: 'Adds a note to the page and returns how many there are.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1 } },
      required: ['text'],
    },
  },
  policy: 'write',
  execute: ({ text }: { text: string }) => {
    notes.push({ text, at: new Date().toISOString() });
    render();
    return { count: notes.length };
  },
});
await toolManager.register({
  name: 'notes.due',
  naturalLanguageProperties: {
    title: 'Notes due before',
    description: 'Counts the notes written before a date (the date arrives as a Date).',
    annotations: { readOnlyHint: true },
    inputSchema: {
      type: 'object',
      properties: { before: { webType: 'Date' } },
      required: ['before'],
    },
  },
  execute: ({ before }: { before: Date }) => ({
    before: before.toISOString(),
    count: notes.filter((note) => new Date(note.at) < before).length,
  }),
});
await toolManager.register({
  name: 'notes.export',
  naturalLanguageProperties: {
    title: 'Export notes',
    description: 'Exports the notes as a text file (a Blob, lowered to {mimeType, data}).',
    annotations: { readOnlyHint: true },
    outputSchema: { webType: 'Blob' },
  },
  execute: () =>
    new Blob([notes.map((note) => `- ${note.text}`).join('\n')], { type: 'text/plain' }),
});
await toolManager.register({
  name: 'notes.list',
  naturalLanguageProperties: {
    title: 'List notes',
    description: 'Lists the notes on the page, newest last.',
    annotations: { readOnlyHint: true },
  },
  execute: () => ({ notes }),
});

// The form adds notes too: the tour drives it with ui.perform_action, as a user would.
document.getElementById('add-button')?.addEventListener('click', () => {
  const input = document.getElementById('note-text') as HTMLInputElement;
  if (!input.value) return;
  notes.push({ text: input.value, at: new Date().toISOString() });
  input.value = '';
  render();
});

const url = new URLSearchParams(location.hash.slice(1)).get('toolwire');
if (url) {
  // Keep the token out of the address bar and history.
  history.replaceState(history.state, '', location.pathname);
  const session = connect({ url, guard: 'read-write' });
  const show = () => {
    status.textContent = `Session: ${session.status}.`;
  };
  session.addEventListener('statuschange', show);
  show();
}
