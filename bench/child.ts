// One suite run in this process (the bundle bench/run.ts builds calls it): reads `--quick` and `--KEY VALUE` from the command line, shows progress on a TTY, prints the result as one JSON document on stdout.

import { runSuite, type Suite } from '../src/cli/bench/suite.ts';
import { parseBenchArgs } from './support/argv.ts';

export async function runChild(suite: Suite): Promise<void> {
  const { quick, args } = parseBenchArgs(process.argv.slice(2));
  const progress = process.stderr.isTTY
    ? (line: string) => process.stderr.write(`\r\x1b[K${line}`)
    : undefined;
  const result = await runSuite(suite, { quick, args, ...(progress ? { progress } : {}) });
  if (progress) process.stderr.write('\r\x1b[K');
  process.stdout.write(JSON.stringify(result));
}
