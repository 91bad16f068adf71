/**
 * A tool as the helper lists it: the shape of Playwright's own `webmcp.tools()` entries, on
 * both paths.
 */
export interface WebMCPTool {
  name: string;
  description: string;
  /** The tool's input JSON Schema, when it has one. */
  inputSchema?: unknown;
  /** Hints the page gave; only these three, named as Playwright names them. */
  annotations?: { readOnly?: boolean; untrustedContent?: boolean; consequential?: boolean };
}
