import { readdirSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// Two projects (docs/harness.md, "Run time and skipping"). `kernel`: every file that makes real network namespaces
// (test/linux/, and any test importing test/support/netns.ts), one file at a time, after everything else, so no
// other process creates or deletes namespaces or loads the CPU while a kernel case runs. `unit`: the rest (in-memory
// tests, real tools reading files, the CLI spawning bin/packetlab.mjs), two workers, one module cache per worker
// (isolate: false: these files share src/ and set no global state, so each module is transformed once per worker).
const TESTS = ['test', 'scenarios'];

function kernelFiles(): string[] {
  const files: string[] = [];
  for (const dir of TESTS) {
    for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (!entry.endsWith('.test.ts')) continue;
      const path = `${dir}/${entry}`;
      if (path.startsWith('test/linux/') || /support\/netns(\.ts)?'/.test(readFileSync(path, 'utf8')))
        files.push(path);
    }
  }
  return files.sort();
}

const kernel = kernelFiles();

export default defineConfig({
  test: {
    testTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: TESTS.map((dir) => `${dir}/**/*.test.ts`),
          exclude: kernel,
          maxWorkers: 2,
          isolate: false,
          globalSetup: ['test/support/cli-bundle.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'kernel', include: kernel, maxWorkers: 1, isolate: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
