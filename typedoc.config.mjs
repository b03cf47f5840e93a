// TypeDoc's configuration for `npm run docs`: the API reference of the package's entry points, read from package.json's
// `exports` (each `./dist/src/X.d.ts` documented from `src/X.ts`), as HTML into docs/api/ (ignored by git).
import { readFileSync } from 'node:fs';

const exports = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).exports;
const entryPoints = Object.values(exports).map((target) =>
  target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts'),
);

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  entryPoints,
  tsconfig: 'tsconfig.json',
  out: 'docs/api',
  name: 'packetlab',
  readme: 'none',
  excludePrivate: true,
  excludeInternal: true,
  githubPages: false,
  // No git remote in a checkout or a tarball, so no source links (they would be broken).
  disableSources: true,
  // A type an entry point references without exporting it (an options object, an internal record) is shown by name,
  // without a page of its own: that is a choice of the entry points, not a defect of the build, so TypeDoc's
  // notExported check is off; every other warning fails the build.
  validation: { notExported: false, invalidLink: true, rewrittenLink: true, unusedMergeModuleWith: true },
  treatWarningsAsErrors: true,
};
