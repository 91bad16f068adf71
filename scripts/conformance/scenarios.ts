/**
 * The official MCP conformance suite's server scenarios (`@modelcontextprotocol/conformance`,
 * pinned in the root package.json) as toolwire runs them: which apply to a server whose tools
 * come from web pages, which do not and why, and how one scenario is run and read back.
 * docs/conformance.md says the same for people; e2e/mcp-conformance.e2e.ts runs them.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One check of a scenario, as the suite writes it to `checks.json`. */
export interface ConformanceCheck {
  id: string;
  name: string;
  description: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  details?: unknown;
}

/**
 * The scenarios that apply, each with the WARNING checks it may give and why they are
 * acceptable. Every other check of an applicable scenario must be SUCCESS (or INFO, the suite's
 * notes that assert nothing), and at least one must be SUCCESS unless the scenario's only
 * assertions are such SHOULDs.
 */
export const APPLICABLE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'server-initialize': {},
  ping: {},
  'tools-list': {},
  'tools-call-simple-text': {},
  'tools-call-image': {},
  'tools-call-embedded-resource': {},
  'tools-call-mixed-content': {},
  'tools-call-error': {},
  'tools-call-with-progress': {},
  'json-schema-2020-12': {},
  'dns-rebinding-protection': {},
  'server-sse-multiple-streams': {},
  'server-sse-polling': {
    'server-sse-priming-event':
      "the scenario posts with `MCP-Protocol-Version: 2025-03-26`, and a priming event (an SSE event with empty data) is only for clients of 2025-11-25 or later; the host keeps no event store either, so it never closes a call's stream to be resumed (a SHOULD)",
    'server-sse-retry-field':
      "a `retry` field comes with the priming event, which this scenario's protocol version does not get (a SHOULD)",
  },
};

/** The scenarios that do not apply, and why. */
export const NOT_APPLICABLE: Readonly<Record<string, string>> = {
  'logging-set-level':
    'the host declares no `logging` capability: pages have no MCP log channel to forward',
  'tools-call-with-logging': 'needs `notifications/message` logging, which the host does not offer',
  'completion-complete':
    'completions are for prompts and resource templates, which the host has none of',
  'tools-call-audio':
    'a page tool cannot answer MCP audio content: a Blob of any type becomes an embedded resource, and only the image web types become image blocks',
  'tools-call-sampling':
    'a page tool cannot ask the MCP client for sampling: the wire has no server-to-client request for it',
  'tools-call-elicitation':
    'a page tool cannot ask the MCP client for input: the wire has no server-to-client request for it',
  'elicitation-sep1034-defaults': 'elicitation, as above',
  'elicitation-sep1330-enums': 'elicitation, as above',
  'resources-list': 'the host serves tools only: no `resources` capability',
  'resources-read-text': 'no resources',
  'resources-read-binary': 'no resources',
  'resources-templates-read': 'no resources',
  'resources-subscribe': 'no resources',
  'resources-unsubscribe': 'no resources',
  'prompts-list': 'the host serves tools only: no `prompts` capability',
  'prompts-get-simple': 'no prompts',
  'prompts-get-with-args': 'no prompts',
  'prompts-get-embedded-resource': 'no prompts',
  'prompts-get-with-image': 'no prompts',
};

const require = createRequire(import.meta.url);
/** The suite's CLI (its package exports no entry point, only the bin). */
export const SUITE_BIN = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
/** The preload that lets the suite start on Node 20 (register.mjs). */
export const SUITE_PRELOAD = fileURLToPath(new URL('./register.mjs', import.meta.url));

/** The suite's own process: none of the caller's preloads or conditions. */
function suiteProcess(args: string[]) {
  return spawn(process.execPath, ['--import', SUITE_PRELOAD, SUITE_BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
}

/** The names of the suite's server scenarios (`list --server`). */
export function listServerScenarios(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = suiteProcess(['list', '--server']);
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`conformance list --server exited with ${code}`));
      else resolve([...stdout.matchAll(/^\s*- (\S+)/gm)].map((match) => match[1] as string));
    });
  });
}

export interface ScenarioRun {
  code: number | null;
  stdout: string;
  stderr: string;
  checks: ConformanceCheck[];
}

/**
 * Runs one server scenario of the official suite against `url` (the suite's own process, Node 20
 * preload included) and reads back the `checks.json` it saved under `outputDir`.
 */
export function runScenario(
  url: string,
  scenario: string,
  outputDir: string,
): Promise<ScenarioRun> {
  const args = ['server', '--url', url, '--scenario', scenario, '--output-dir', outputDir];
  return new Promise((resolve, reject) => {
    const child = suiteProcess(args);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      // `<outputDir>/server-<scenario>-<timestamp>/checks.json`, one per run.
      const prefix = `server-${scenario}-`;
      const dirs = readdirSync(outputDir).filter((name) => name.startsWith(prefix));
      const latest = dirs.sort().at(-1);
      const checks =
        latest === undefined
          ? []
          : (JSON.parse(
              readFileSync(join(outputDir, latest, 'checks.json'), 'utf8'),
            ) as ConformanceCheck[]);
      resolve({ code, stdout, stderr, checks });
    });
  });
}

/**
 * What is wrong with one scenario's checks: every check SUCCESS or INFO, except the WARNINGs it
 * may give (APPLICABLE); no checks at all is wrong too. Empty when all is well.
 */
export function problems(scenario: string, checks: readonly ConformanceCheck[]): string[] {
  const allowed = APPLICABLE[scenario] ?? {};
  if (checks.length === 0) return [`${scenario}: no checks were written`];
  const out: string[] = [];
  for (const check of checks) {
    if (check.status === 'SUCCESS' || check.status === 'INFO') continue;
    if (check.status === 'WARNING' && Object.hasOwn(allowed, check.id)) continue;
    out.push(
      `${scenario} / ${check.id}: ${check.status}${check.errorMessage ? ` (${check.errorMessage})` : ''}`,
    );
  }
  // A scenario whose only assertions are SHOULDs (server-sse-polling) may have no SUCCESS.
  const shouldsOnly = Object.keys(allowed).length > 0;
  if (!shouldsOnly && !checks.some((check) => check.status === 'SUCCESS'))
    out.push(`${scenario}: no check succeeded`);
  return out;
}
