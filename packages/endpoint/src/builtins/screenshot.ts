/**
 * `ui.get_screenshot` (read): an image of the page, from a capture provider the page registers.
 * A page cannot capture itself (only an extension, `getDisplayMedia` or the host can), so
 * without a provider the tool stays in the catalog but reports itself unavailable with a code
 * and a remediation, as docs/wire.md's runtime object allows. A provider that throws fails
 * `screenshot_failed` (retryable: capture often fails transiently, e.g. a hidden tab).
 */
import type { BridgeTool } from '@toolwire/protocol';
import { toolFailure } from '@toolwire/protocol';
import { BUILTIN_ERROR_CODES, DISPOSED } from './lib/failures.js';
import type { CaptureArguments, CaptureProvider, CaptureResult } from './types.js';

const SCREENSHOT_UNAVAILABLE = {
  available: false,
  code: BUILTIN_ERROR_CODES.screenshotUnavailable,
  reason: 'No capture provider is registered on this page.',
  remediation:
    'Call connect({captureProvider}) with a function that captures the page (for example with an extension or getDisplayMedia).',
  retryable: false,
} as const;

const argumentsSchema = {
  type: 'object',
  properties: {
    maxWidth: {
      type: 'integer',
      minimum: 1,
      maximum: 16384,
      description: 'Scale the image down to at most this many pixels wide.',
    },
    format: {
      enum: ['png', 'jpeg'],
      description: "Image format; the provider's default if absent.",
    },
  },
  additionalProperties: false,
};

const resultSchema = {
  type: 'object',
  properties: {
    mimeType: { type: 'string', pattern: '^image/' },
    data: { type: 'string', contentEncoding: 'base64', description: 'The image bytes, base64.' },
    width: { type: 'integer', minimum: 0 },
    height: { type: 'integer', minimum: 0 },
  },
  required: ['mimeType', 'data', 'width', 'height'],
  additionalProperties: false,
};

export function screenshotTool(
  provider: CaptureProvider | undefined,
  isDisposed: () => boolean,
): BridgeTool {
  return {
    definition: {
      id: 'ui.get_screenshot',
      name: 'Get Screenshot',
      description: "Captures an image of the page through the page's registered capture provider.",
      category: 'ui',
      policy: 'read',
      argumentsSchema,
      resultSchema,
      keywords: ['ui', 'screenshot', 'image', 'capture', 'screen', 'picture'],
    },
    availability: () => (isDisposed() ? DISPOSED : provider ? true : SCREENSHOT_UNAVAILABLE),
    async execute(args) {
      // availability() is checked by the bridge first; this guards a direct call.
      if (!provider || isDisposed())
        return toolFailure({
          code: SCREENSHOT_UNAVAILABLE.code,
          message: SCREENSHOT_UNAVAILABLE.reason,
          details: { ...SCREENSHOT_UNAVAILABLE },
        });
      const request: CaptureArguments = {};
      if (typeof args.maxWidth === 'number') request.maxWidth = args.maxWidth;
      if (args.format === 'png' || args.format === 'jpeg') request.format = args.format;
      let captured: CaptureResult;
      try {
        captured = await provider.capture(request);
      } catch (error) {
        return toolFailure({
          code: BUILTIN_ERROR_CODES.screenshotFailed,
          message: `The capture provider failed: ${error instanceof Error ? error.message : String(error)}`,
          retryable: true,
        });
      }
      // Only the contract's fields travel; the result schema checks their types.
      const { mimeType, data, width, height } = captured;
      return { mimeType, data, width, height };
    },
  };
}
