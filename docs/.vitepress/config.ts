import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DefaultTheme, defineConfig } from 'vitepress';

/** One module page of the generated API reference, as TypeDoc's navigation file lists it. */
interface ApiNavigationItem {
  title: string;
  path?: string;
  children?: ApiNavigationItem[];
}

/**
 * The API reference's sidebar, from the navigation file TypeDoc writes beside its entry points
 * (docs/api-src/navigation.json). Before the first `pnpm docs:build` there is none, and the
 * group holds only its index.
 */
function apiSidebar(): DefaultTheme.SidebarItem[] {
  const file = fileURLToPath(new URL('../api-src/navigation.json', import.meta.url));
  const modules: ApiNavigationItem[] = existsSync(file)
    ? JSON.parse(readFileSync(file, 'utf8'))
    : [];
  return [
    { text: 'Modules', link: '/api/' },
    ...modules
      .filter((item) => item.path)
      .map((item) => ({ text: item.title, link: `/api/${item.path?.replace(/\.md$/, '')}` })),
  ];
}

const guide: DefaultTheme.SidebarItem[] = [
  { text: 'Overview', link: '/' },
  { text: 'Getting started', link: '/getting-started' },
  { text: 'The browser API', link: '/browser-api' },
  { text: "The polyfill's rules", link: '/polyfill-rules' },
  { text: 'React: useTool', link: '/react' },
  { text: 'Playwright: webmcp(page)', link: '/playwright' },
  { text: 'The browser extension', link: '/extension' },
  { text: 'Permissions and trust', link: '/permissions' },
  { text: 'Security model', link: '/security' },
  { text: 'The JSON lowering', link: '/lowering' },
  { text: 'The CLI and MCP', link: '/cli' },
  { text: 'MCP clients', link: '/mcp-clients' },
];

const reference: DefaultTheme.SidebarItem[] = [
  { text: 'The wire contract', link: '/wire' },
  { text: 'Limits', link: '/limits' },
  { text: 'MCP conformance', link: '/conformance' },
  { text: 'API reference', link: '/api/' },
];

const contributing: DefaultTheme.SidebarItem[] = [
  { text: 'Contributing', link: '/contributing' },
  { text: 'Architecture', link: '/architecture' },
  { text: 'Style', link: '/style' },
  { text: 'Performance', link: '/performance' },
];

export default defineConfig({
  title: 'toolwire',
  description:
    'Any web page as a tool provider for AI agents: WebMCP in the page, a wire contract to the host on your machine, and an MCP bridge.',
  cleanUrls: true,
  lastUpdated: false,
  // The site's own tooling is not pages.
  srcExclude: ['api-src/**', 'scripts/**', 'test/**'],
  themeConfig: {
    nav: [
      {
        text: 'Guide',
        link: '/getting-started',
        activeMatch:
          '^/(getting-started|browser-api|polyfill-rules|react|playwright|permissions|security|lowering|cli|mcp-clients)',
      },
      { text: 'Wire contract', link: '/wire' },
      { text: 'API reference', link: '/api/', activeMatch: '^/api/' },
      {
        text: 'Contributing',
        link: '/contributing',
        activeMatch: '^/(contributing|architecture|style|performance)',
      },
    ],
    sidebar: {
      '/api/': [
        { text: 'API reference', items: apiSidebar() },
        { text: 'Guide', collapsed: true, items: [...guide, ...reference.slice(0, 1)] },
      ],
      '/': [
        { text: 'Guide', items: guide },
        { text: 'Reference', items: reference },
        { text: 'Contributing', items: contributing },
      ],
    },
    outline: { level: [2, 3] },
    // Built in, offline: the index is made at build time and searched in the browser.
    search: { provider: 'local' },
  },
  // The local search index holds the API reference too (about 850 kB, loaded when searching).
  vite: { build: { chunkSizeWarningLimit: 1024 } },
});
