// Server-side rendering imports the polyfill and calls install() where there is no document:
// that must do nothing (no throw, no global), so the same module runs on both sides.
import { install } from '@toolwire/polyfill';

let outcome;
try {
  install();
  outcome = {
    threw: false,
    globals: ['toolManager', 'tools'].filter((name) => name in globalThis),
  };
} catch (error) {
  outcome = { threw: true, message: String(error?.message ?? error) };
}
console.log(JSON.stringify(outcome));
