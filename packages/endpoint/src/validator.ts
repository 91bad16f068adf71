/**
 * The bridge's validator for the tools that do not check themselves (the built-in ui.* tools),
 * on the polyfill's engine: ajv where the page allows eval, the eval-free fallback under a
 * strict CSP, and none for a trivial schema (the polyfill's validation/trivial.ts). Its issues are the same ValidationIssue the protocol's validators report.
 */
import { loadValidator, trivialCheck } from '@toolwire/polyfill';
import type { ValidatorProvider } from '@toolwire/protocol';

export function pageValidator(): ValidatorProvider {
  return {
    async compile(schema) {
      // A schema any value (or any object) satisfies loads no validator.
      const check = trivialCheck(schema) ?? (await loadValidator()).compile(schema, 'json');
      return (data) => {
        const issues = check(data);
        return issues ? { valid: false, errors: issues } : { valid: true, data };
      };
    },
  };
}
