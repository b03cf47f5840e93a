// Finding the real command-line tools (tcpdump, tshark) that read our output; a missing tool skips locally and fails in CI.

import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const found = new Map<string, boolean>();

/** True when an executable named `name` is on PATH (no shell involved). */
export function hasTool(name: string): boolean {
  let present = found.get(name);
  if (present === undefined) {
    present = (process.env.PATH ?? '').split(delimiter).some((dir) => {
      if (dir === '') return false;
      try {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    found.set(name, present);
  }
  return present;
}

/** The part of vitest's test context used to skip a running test. */
export interface SkippableTest {
  skip(note?: string): void;
}

const noticed = new Set<string>();

/**
 * Whether `name` can be run. When it cannot: with `CI` set this throws (CI installs every
 * tool, so a missing one is a broken pipeline); locally it prints a notice once and returns
 * false, and with a test context it marks the running test skipped.
 */
export function requireTool(name: string, test?: SkippableTest): boolean {
  if (hasTool(name)) return true;
  if (process.env.CI) throw new Error(`${name} is not installed, but CI must run the tests that need it`);
  const notice = `${name} not found on PATH: skipping the tests that need it (they run in CI)`;
  if (!noticed.has(name)) {
    noticed.add(name);
    console.warn(`notice: ${notice}`);
  }
  test?.skip(notice);
  return false;
}
