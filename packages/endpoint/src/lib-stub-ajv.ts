// The endpoint IIFE validates through the polyfill's lazily loaded engines (CSP-safe), so the
// protocol's own ajv default is never used there; this stands in for it in that build only.
export default function unavailable(): never {
  throw new Error('toolwire: the endpoint build validates with the polyfill engines.');
}
