// kubectl's words for a bad command line, as cobra and kubectl's cmdutil print them (checked against kubectl 1.32's
// own output on this machine: `Error: unknown flag: --x` then `See 'kubectl get --help' for usage.`).

import { type CommandResult, fail } from '../../../tools/result.ts';

/** A pflag error on `kubectl SUBCOMMAND`. */
export function flagError(subcommand: string, message: string): CommandResult {
  return fail(`Error: ${message}\nSee 'kubectl ${subcommand} --help' for usage.\n`);
}
