/**
 * The notes app's data and its tools. Four of them show the lowering at the agent boundary:
 * `notes.due` takes a Date, `notes.export` returns a Blob, `notes.tags` returns a Map, and
 * `notes.add` / `notes.list` are plain JSON. Tags are the `#words` of a note's text.
 */
import type { Installation } from '../../packages/polyfill/src/index.js';

export interface Note {
  id: number;
  text: string;
  /** When it was written, ISO 8601. */
  at: string;
  tags: string[];
}

export class NoteStore extends EventTarget {
  readonly notes: Note[] = [];
  #next = 1;

  add(text: string): Note {
    const note: Note = {
      id: this.#next++,
      text,
      at: new Date().toISOString(),
      tags: tagsOf(text),
    };
    this.notes.push(note);
    this.dispatchEvent(new Event('change'));
    return note;
  }

  /** Notes containing `text` (any case) and carrying `tag` (when given), in `order`. */
  search(text: string, tag: string, order: 'newest' | 'oldest'): Note[] {
    const words = text.trim().toLowerCase();
    const wanted = tag.trim().replace(/^#/, '').toLowerCase();
    const found = this.notes.filter(
      (note) =>
        note.text.toLowerCase().includes(words) && (wanted === '' || note.tags.includes(wanted)),
    );
    return order === 'newest' ? found.reverse() : found;
  }

  /** Tag -> how many notes carry it, sorted by tag. */
  tagCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const note of this.notes) {
      for (const tag of note.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    }
    return new Map([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

export function tagsOf(text: string): string[] {
  const found = text.match(/#[\p{L}\p{N}_-]+/gu) ?? [];
  return [...new Set(found.map((tag) => tag.slice(1).toLowerCase()))];
}

export async function registerNoteTools(
  { toolManager }: Installation,
  store: NoteStore,
): Promise<void> {
  await toolManager.register({
    name: 'notes.add',
    naturalLanguageProperties: {
      title: 'Add a note',
      description: 'Adds a note (#words in the text become tags) and returns how many there are.',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', minLength: 1 } },
        required: ['text'],
      },
    },
    policy: 'write',
    execute: ({ text }: { text: string }) => {
      store.add(text);
      return { count: store.notes.length };
    },
  });
  await toolManager.register({
    name: 'notes.list',
    naturalLanguageProperties: {
      title: 'List notes',
      description: 'Lists the notes, oldest first.',
      annotations: { readOnlyHint: true },
    },
    execute: () => ({ notes: store.notes.map(({ text, at, tags }) => ({ text, at, tags })) }),
  });
  await toolManager.register({
    name: 'notes.due',
    naturalLanguageProperties: {
      title: 'Notes written before',
      description:
        'Counts the notes written before a date. The date arrives in the page as a Date.',
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: 'object',
        properties: { before: { webType: 'Date' } },
        required: ['before'],
      },
    },
    execute: ({ before }: { before: Date }) => ({
      before: before.toISOString(),
      count: store.notes.filter((note) => new Date(note.at) < before).length,
    }),
  });
  await toolManager.register({
    name: 'notes.export',
    naturalLanguageProperties: {
      title: 'Export notes',
      description:
        'Exports the notes as a text file: a Blob in the page, {mimeType, data} on the wire.',
      annotations: { readOnlyHint: true },
      outputSchema: { webType: 'Blob' },
    },
    execute: () =>
      new Blob([store.notes.map((note) => `- ${note.text}`).join('\n')], { type: 'text/plain' }),
  });
  await toolManager.register({
    name: 'notes.tags',
    naturalLanguageProperties: {
      title: 'Count tags',
      description:
        'Counts the notes per #tag: a Map of tag -> count in the page, a JSON object on the wire.',
      annotations: { readOnlyHint: true },
      outputSchema: { webType: 'Map', keys: { type: 'string' }, values: { type: 'integer' } },
    },
    execute: () => store.tagCounts(),
  });
}
