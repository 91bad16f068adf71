/**
 * A tool's wire metadata: what a remote-tool endpoint needs beyond the handle (policy,
 * category, keywords, prerequisites, availability). From the registry for this document's
 * tools, from the owner frame's last report for tools in other frames.
 */
import { policyFromAnnotations } from '../policy.js';
import type { Tool, ToolSource } from '../tool.js';
import type { AvailabilityResult, ToolPolicy } from '../types.js';

/** Wire metadata of a tool (see wireInfo). */
export interface ToolWireInfo {
  policy: ToolPolicy;
  category: string | undefined;
  keywords: string[];
  prerequisites: string[];
  /** Evaluated now for this document's tools; the owner's last report for other frames'. */
  availability: () => AvailabilityResult;
  /** This document's own tool (its registry's, or the browser's), not another frame's. */
  local: boolean;
  /**
   * The tool's own layer checks its input and output on every call, so the endpoint's bridge
   * need not check them again (one validation per call): the polyfill, against its schemas (in
   * this document, or in the frame that owns it), or, for a form tool, the form itself (the
   * browser's own form tools included: their schema is the browser's reading of the form, which
   * its executeTool does not check). False for the browser's other tools (a page's own
   * registerTool), which the bridge checks against their schemas.
   */
  validates: boolean;
}

/** What wireInfo asks of `window.tools` (Tools.sourceOf): where a handle's tool lives. */
export interface ToolSources {
  sourceOf(tool: Tool): ToolSource | undefined;
}

/** Undefined for handles `tools` does not know. */
export function wireInfo(tools: ToolSources, tool: Tool): ToolWireInfo | undefined {
  const source = tools.sourceOf(tool);
  if (!source) return undefined;
  if (source.kind === 'registry') {
    const entry = source.entry;
    return {
      policy: entry.policy,
      category: entry.category,
      keywords: [...entry.keywords],
      prerequisites: [...entry.prerequisites],
      availability: entry.availability ?? (() => true),
      local: true,
      validates: true,
    };
  }
  if (source.kind === 'native') {
    // A tool the browser registered (a page's own registerTool, or a form tool): the policy
    // rule every layer uses; availability is the browser's. A form decides what a call may
    // fill (docs/browser-api.md "Declarative forms"), on the wire as through executeTool.
    return {
      policy: policyFromAnnotations(tool.annotations),
      category: undefined,
      keywords: [],
      prerequisites: [],
      availability: () => true,
      local: true,
      validates: source.declarative(),
    };
  }
  const descriptor = source.descriptor;
  const runtime = descriptor.runtime;
  return {
    policy: descriptor.policy,
    category: descriptor.category,
    keywords: descriptor.keywords,
    prerequisites: descriptor.prerequisites,
    availability: () => (runtime ? (runtime as Exclude<AvailabilityResult, true>) : true),
    local: false,
    validates: true,
  };
}
