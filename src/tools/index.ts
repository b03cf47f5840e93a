// The command façade's public surface: run a command line in a namespace as the real tool would.

export { type CommandResult, exec, spawn } from './exec.ts';
export type { Capture } from './tcpdump.ts';
