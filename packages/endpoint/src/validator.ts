/**
 * The bridge's validator, on the polyfill's engine: ajv where the page allows eval, the
 * eval-free fallback under a strict CSP (the protocol's own default would need eval).
 */
import { loadValidator } from '@toolwire/polyfill';
import type { ValidatorProvider } from '@toolwire/protocol';

/** JSON Pointer (`/a/0`) to the wire's `$`-rooted path (`$.a[0]`). */
function toWirePath(pointer: string): string {
  if (pointer === '') return '$';
  return `$${pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) =>
      /^\d+$/.test(segment)
        ? `[${segment}]`
        : /^[A-Za-z_$][\w$]*$/.test(segment)
          ? `.${segment}`
          : `[${JSON.stringify(segment)}]`,
    )
    .join('')}`;
}

export function pageValidator(): ValidatorProvider {
  return {
    async compile(schema) {
      const check = (await loadValidator()).compile(schema, 'json');
      return (data) => {
        const issues = check(data);
        if (!issues) return { valid: true, data };
        return {
          valid: false,
          errors: issues.map((issue) => ({
            path: toWirePath(issue.path),
            message: issue.reason,
            keyword: issue.schemaPath.split('/').at(-1) ?? '',
            schemaPath: issue.schemaPath,
          })),
        };
      };
    },
  };
}
