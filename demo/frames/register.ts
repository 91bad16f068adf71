/**
 * Registers one document's tools as scenarios.ts describes them; shared by the top page and the
 * frame pages. A rejected registration is reported, never thrown: the matrix shows it.
 */
import type { Installation } from '../../packages/polyfill/src/index.js';
import type { RegistrationResult } from './messages.js';
import type { DemoOrigins, FrameSpec } from './scenarios.js';
import { exposedToOf } from './scenarios.js';

export function describeError(error: unknown): string {
  if (error instanceof Error || error instanceof DOMException)
    return `${error.name}: ${error.message}`;
  return String(error);
}

export async function registerTools(
  installation: Installation,
  frame: FrameSpec,
  origins: DemoOrigins,
): Promise<RegistrationResult[]> {
  const results: RegistrationResult[] = [];
  for (const tool of frame.tools) {
    const exposedTo = exposedToOf(tool.exposure, origins);
    const description = `Demo tool of ${frame.id} (${frame.label}).`;
    const execute = () => ({ from: frame.id, tool: tool.name });
    try {
      if (tool.via === 'modelContext') {
        await installation.modelContext.registerTool(
          { name: tool.name, description, execute },
          exposedTo ? { exposedTo } : {},
        );
      } else {
        await installation.toolManager.register({
          name: tool.name,
          execute,
          ...(exposedTo ? { exposedTo } : {}),
          ...(tool.agent ? { naturalLanguageProperties: { description } } : {}),
        });
      }
      results.push({ name: tool.name, ok: true });
    } catch (error) {
      results.push({ name: tool.name, ok: false, error: describeError(error) });
    }
  }
  return results;
}
