// The unit project's global set-up: builds the packetlab command once per test run into one JavaScript file, so the
// CLI tests that start it some forty times pay 0.4 s a start instead of 1.5 s (bin/packetlab.mjs in a checkout loads
// about 400 TypeScript modules through tsx's loader each time). Not the launcher itself: bin/packetlab.mjs stays
// covered by the tests that start it as a user does (packetlab-command.test.ts, verify.test.ts).
//
// The bundle runs what bin/packetlab.mjs runs in a checkout (src/cli/main.ts over scenarios/index.ts), compiled by
// the same esbuild tsx uses; npm packages stay imports (resolved from the worktree's node_modules, which is why the
// file lives under the worktree's ignored tmp/), and each module's import.meta.url is its own source file's URL, so
// paths found next to a module (the verify peers, tsx's loader for a user's .ts lab) are those of the checkout.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The bundled packetlab command (node FILE ARGS...). */
    packetlabCli: string;
  }
}

/** `import.meta.url` in a bundled module reads as the URL of the module's own source file. */
function ownImportMetaUrl(root: string): Plugin {
  return {
    name: 'own-import-meta-url',
    setup(esbuild) {
      esbuild.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(root) || args.path.includes('/node_modules/')) return undefined;
        const source = readFileSync(args.path, 'utf8');
        const url = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}

export default async function setup(project: TestProject): Promise<() => void> {
  const root = project.config.root;
  mkdirSync(join(root, 'tmp'), { recursive: true });
  const dir = mkdtempSync(join(root, 'tmp', 'packetlab-cli-'));
  const outfile = join(dir, 'packetlab.mjs');
  await build({
    stdin: {
      // bin/packetlab.mjs's checkout branch: tsx's loader registered (a user's .mjs lab may import src/index.ts),
      // then main() over the table.
      contents: [
        "import { register } from 'tsx/esm/api';",
        'register();',
        "import { main } from './src/cli/main.ts';",
        "import { SCENARIOS } from './scenarios/index.ts';",
        'process.exitCode = await main(process.argv.slice(2), SCENARIOS);',
      ].join('\n'),
      resolveDir: root,
      sourcefile: 'packetlab-cli.ts',
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'warning',
    plugins: [ownImportMetaUrl(root)],
  });
  project.provide('packetlabCli', outfile);
  return () => rmSync(dir, { recursive: true, force: true });
}
