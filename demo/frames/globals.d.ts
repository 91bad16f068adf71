/** Both origins of the demo, injected by demo/vite.config.ts (`define`). */
declare const __TOOLWIRE_DEMO_ORIGINS__: { A: string; B: string } | undefined;
