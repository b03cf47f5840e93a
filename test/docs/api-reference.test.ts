// `npm run docs` (TypeDoc): its entry points are the package's, one source file per `exports` entry of package.json.
// The TypeDoc build itself (about a minute) is not run here; it fails on any warning (treatWarningsAsErrors).

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface TypeDocConfig {
  readonly entryPoints: readonly string[];
  readonly treatWarningsAsErrors: boolean;
}

const { default: config } = (await import(new URL('../../typedoc.config.mjs', import.meta.url).href)) as {
  default: TypeDocConfig;
};

describe('the API reference configuration (typedoc.config.mjs)', () => {
  it('documents every subpath the package exports, from its TypeScript source', () => {
    const exports = JSON.parse(readFileSync('package.json', 'utf8')).exports as Record<
      string,
      { types: string }
    >;
    expect(config.entryPoints).toHaveLength(Object.keys(exports).length);
    expect(config.entryPoints).toContain('src/index.ts');
    for (const entry of config.entryPoints) expect(existsSync(entry), entry).toBe(true);
    expect(config.treatWarningsAsErrors).toBe(true);
  });
});
