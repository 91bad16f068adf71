/**
 * The panel's tools grouped by the origin of the frame that registered them: the tab's own
 * origin first, then each frame origin in the order the tab listed it. Each group is a
 * `<section class="frame-group">` headed by its origin (set as text).
 */
import type { TabTool } from '../../src/types.js';

export function groupByOrigin(
  doc: Document,
  tools: TabTool[],
  topOrigin: string,
  render: (tool: TabTool) => HTMLElement,
): HTMLElement[] {
  const groups = new Map<string, TabTool[]>([[topOrigin, []]]);
  for (const tool of tools) {
    const group = groups.get(tool.origin) ?? [];
    groups.set(tool.origin, group);
    group.push(tool);
  }
  const out: HTMLElement[] = [];
  for (const [origin, members] of groups) {
    if (members.length === 0) continue;
    const section = doc.createElement('section');
    section.className = 'frame-group';
    section.dataset.origin = origin;
    const heading = doc.createElement('h2');
    heading.className = 'frame-origin';
    heading.textContent = origin === topOrigin ? origin : `${origin} (frame)`;
    section.append(heading, ...members.map(render));
    out.push(section);
  }
  return out;
}
