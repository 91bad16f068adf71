/**
 * The RegisteredTool dictionaries `document.modelContext.getTools()` returns (model-context.ts
 * for this document's tools; frames/node.ts, in the frames chunk, for the other documents').
 */

export interface ModelContextToolAnnotations {
  readOnlyHint?: boolean;
  untrustedContentHint?: boolean;
  consequentialHint?: boolean;
  debugging?: boolean;
}

export interface RegisteredTool {
  annotations?: Required<ModelContextToolAnnotations>;
  description: string;
  inputSchema?: object;
  name: string;
  origin: string;
  title: string;
  window: Window;
}

const SPEC_ANNOTATIONS = [
  'consequentialHint',
  'debugging',
  'readOnlyHint',
  'untrustedContentHint',
] as const;

/** The spec's annotations, each a boolean (true only where the tool said true). */
export function specAnnotations(annotations: object): Required<ModelContextToolAnnotations> {
  const source = annotations as Record<string, unknown>;
  const out = {} as Required<ModelContextToolAnnotations>;
  for (const key of SPEC_ANNOTATIONS) out[key] = source[key] === true;
  return out;
}

/**
 * A tool as getTools lists it: dictionary members in WebIDL (lexicographic) order, as the
 * native implementation returns them; `inputSchema` already parsed (and its web types expanded).
 */
export function registeredTool(
  tool: {
    annotations: object | null | undefined;
    description: string;
    name: string;
    origin: string;
    title: string | null;
  },
  inputSchema: object | undefined,
  window: Window,
): RegisteredTool {
  const out = {} as RegisteredTool;
  if (tool.annotations) out.annotations = specAnnotations(tool.annotations);
  out.description = tool.description;
  if (inputSchema) out.inputSchema = inputSchema;
  out.name = tool.name;
  out.origin = tool.origin;
  out.title = tool.title ?? '';
  out.window = window;
  return out;
}
