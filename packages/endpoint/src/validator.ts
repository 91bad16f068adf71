/**
 * Validation on the page, in the wire's terms:
 * - `pageValidator`: the bridge's validator for the tools that do not check themselves (the
 *   built-in ui.* tools), on the polyfill's engine: ajv where the page allows eval, the
 *   eval-free fallback under a strict CSP.
 * - `wireIssues`: the one adapter from the polyfill's issues (JSON Pointer `path`, `reason`) to
 *   the wire's `details` (`$`-rooted `path`, `message`, `keyword`), for both the built-ins'
 *   checks and the polyfill's own DataError.
 */
import type { ValidationIssue as PolyfillIssue } from '@toolwire/polyfill';
import { loadValidator } from '@toolwire/polyfill';
import type { ValidationIssue, ValidatorProvider } from '@toolwire/protocol';
import { pointerToPath } from '@toolwire/protocol';

export function wireIssues(issues: readonly PolyfillIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({
    path: pointerToPath(issue.path),
    message: issue.reason,
    keyword: issue.schemaPath.split('/').at(-1) ?? '',
    schemaPath: issue.schemaPath,
  }));
}

export function pageValidator(): ValidatorProvider {
  return {
    async compile(schema) {
      const check = (await loadValidator()).compile(schema, 'json');
      return (data) => {
        const issues = check(data);
        return issues ? { valid: false, errors: wireIssues(issues) } : { valid: true, data };
      };
    },
  };
}
