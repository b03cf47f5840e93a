#!/usr/bin/env node
// The packetlab command. In a checkout (src/ next to bin/) it loads the TypeScript sources through tsx's loader, so
// it runs with no build; in an installed package it runs the JavaScript that `npm run build` emitted into dist/.
import { existsSync } from 'node:fs';

const checkout = existsSync(new URL('../src/cli/main.ts', import.meta.url));
let modules;
if (checkout) {
  const { register } = await import('tsx/esm/api');
  register();
  modules = ['../src/cli/main.ts', '../scenarios/index.ts'];
} else {
  modules = ['../dist/src/cli/main.js', '../dist/scenarios/index.js'];
}
const { main } = await import(modules[0]);
const { SCENARIOS } = await import(modules[1]);
process.exitCode = await main(process.argv.slice(2), SCENARIOS);
