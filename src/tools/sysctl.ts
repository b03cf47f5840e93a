// `sysctl` as procps prints it: KEY = VALUE, -n for values only, -w KEY=VALUE to write, -a to list.

import type { Namespace } from '../netns/namespace.ts';
import { type CommandResult, fail } from './result.ts';

export function sysctl(ns: Namespace, args: string[]): CommandResult {
  let valuesOnly = false;
  let write = false;
  let all = false;
  const names: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('-') && arg.length > 1 && !arg.startsWith('--')) {
      for (const flag of arg.slice(1)) {
        if (flag === 'n') valuesOnly = true;
        else if (flag === 'w') write = true;
        else if (flag === 'a') all = true;
        else if (flag === 'q' || flag === 'e') continue;
        else
          return fail(
            `sysctl: invalid option -- '${flag}'\nUsage:\n sysctl [options] [variable[=value] ...]\n`,
            255,
          );
      }
      continue;
    }
    names.push(arg);
  }
  const format = (key: string, value: string): string => (valuesOnly ? `${value}\n` : `${key} = ${value}\n`);
  let stdout = '';
  let stderr = '';
  let exitCode = 0;
  if (all)
    for (const key of ns.sysctls.keys())
      stdout += format(key, (ns.sysctls.get(key) as { value: string }).value);
  for (const name of names) {
    const eq = name.indexOf('=');
    if (eq >= 0) {
      const key = name.slice(0, eq).trim();
      const value = name.slice(eq + 1).trim();
      const result = ns.sysctls.set(key, value);
      if (!result.ok) {
        stderr +=
          result.error === 'ENOENT'
            ? `sysctl: cannot stat /proc/sys/${key.replaceAll('.', '/')}: No such file or directory\n`
            : `sysctl: setting key "${key}": Invalid argument\n`;
        exitCode = 255;
        continue;
      }
      stdout += format(key, result.value);
      continue;
    }
    if (write) {
      stderr += `sysctl: "${name}" must be of the form name=value\n`;
      exitCode = 255;
      continue;
    }
    const result = ns.sysctls.get(name);
    if (!result.ok) {
      stderr += `sysctl: cannot stat /proc/sys/${name.replaceAll('.', '/')}: No such file or directory\n`;
      exitCode = 255;
      continue;
    }
    stdout += format(name, result.value);
  }
  return { stdout, stderr, exitCode };
}
