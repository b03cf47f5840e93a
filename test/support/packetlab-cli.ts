// The packetlab command for tests that start it as a process: the unit project's bundle of it (cli-bundle.ts), or
// bin/packetlab.mjs where no bundle was built (a file run in another project).

import { inject } from 'vitest';

/** The script `node` runs as the packetlab command. */
export function packetlabScript(): string {
  return inject('packetlabCli') ?? 'bin/packetlab.mjs';
}
