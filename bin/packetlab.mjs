#!/usr/bin/env node
// The packetlab command: loads the TypeScript CLI and the scenario table through tsx's loader so it runs straight
// from a checkout.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const { SCENARIOS } = await import('../scenarios/index.ts');
process.exitCode = await main(process.argv.slice(2), SCENARIOS);
