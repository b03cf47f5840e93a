// `sysctl` as procps prints it: KEY = VALUE, -n for values only, -w KEY=VALUE to write, -a to list.

import type { Namespace } from '../netns/namespace.ts';
import { type CommandResult, fail } from './result.ts';

/** procps-ng 4.0.2's usage text, printed on stdout for an unknown option (and, oddly, exit status 0). */
const USAGE = `
Usage:
 sysctl [options] [variable[=value] ...]

Options:
  -a, --all            display all variables
  -A                   alias of -a
  -X                   alias of -a
      --deprecated     include deprecated parameters to listing
      --dry-run        Print the key and values but do not write
  -b, --binary         print value without new line
  -e, --ignore         ignore unknown variables errors
  -N, --names          print variable names without values
  -n, --values         print only values of the given variable(s)
  -p, --load[=<file>]  read values from file
  -f                   alias of -p
      --system         read values from all system directories
  -r, --pattern <expression>
                       select setting that match expression
  -q, --quiet          do not echo variable set
  -w, --write          enable writing a value to variable
  -o                   does nothing
  -x                   does nothing
  -d                   alias of -h

 -h, --help     display this help and exit
 -V, --version  output version information and exit

For more details see sysctl(8).
`;

const NO_VARIABLES = "sysctl: no variables specified\nTry `sysctl --help' for more information.\n";

export function sysctl(ns: Namespace, args: string[]): CommandResult {
  let valuesOnly = false;
  let write = false;
  let all = false;
  let quiet = false;
  const names: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('-') && arg.length > 1 && !arg.startsWith('--')) {
      for (const flag of arg.slice(1)) {
        if (flag === 'n') valuesOnly = true;
        else if (flag === 'w') write = true;
        else if (flag === 'a') all = true;
        else if (flag === 'q') quiet = true;
        else if (flag === 'e' || flag === 'x' || flag === 'o') continue;
        else return { stdout: USAGE, stderr: `sysctl: invalid option -- '${flag}'\n`, exitCode: 0 };
      }
      continue;
    }
    names.push(arg);
  }
  if (names.length === 0 && !all) return fail(NO_VARIABLES, 1);
  const format = (key: string, value: string): string => (valuesOnly ? `${value}\n` : `${key} = ${value}\n`);
  let stdout = '';
  let stderr = '';
  let exitCode = 0;
  if (all)
    for (const key of ns.sysctls.keys())
      stdout += format(key, (ns.sysctls.get(key) as { value: string }).value);
  for (const given of names) {
    // sysctl accepts net/ipv4/ip_forward and prints it net.ipv4.ip_forward.
    const name = given.replaceAll('/', '.');
    const eq = name.indexOf('=');
    if (eq >= 0) {
      const key = name.slice(0, eq).trim();
      const value = name.slice(eq + 1).trim();
      const result = ns.sysctls.set(key, value);
      if (!result.ok) {
        stderr +=
          result.error === 'ENOENT' && !ns.sysctls.get(key).ok
            ? `sysctl: cannot stat /proc/sys/${key.replaceAll('.', '/')}: No such file or directory\n`
            : `sysctl: setting key "${key}": ${result.error === 'ENOENT' ? 'No such file or directory' : 'Invalid argument'}\n`;
        // procps 4.0.2 skips a read-only key without trying to write it: same message (errno left
        // from an earlier readlink), exit status untouched.
        if (result.error !== 'EACCES') exitCode = 1;
        continue;
      }
      // procps echoes the value as written (`40000 40063`, `01`), not as the kernel reads it back.
      if (!quiet) stdout += format(key, value);
      continue;
    }
    if (write) {
      stderr += 'sysctl: command line(0): invalid syntax, continuing...\n';
      exitCode = 1;
      continue;
    }
    const result = ns.sysctls.get(name);
    if (!result.ok) {
      stderr += `sysctl: cannot stat /proc/sys/${name.replaceAll('.', '/')}: No such file or directory\n`;
      exitCode = 1;
      continue;
    }
    stdout += format(name, result.value);
  }
  return { stdout, stderr, exitCode };
}
