// The layering rule of docs/architecture.md, enforced: imports in src/ point downward only, src/ never imports
// scenarios/ or test/, and only src/cli/ imports Node built-ins.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Bottom first: a file may import its own layer and the layers before it. */
const LAYERS = [
  'wire',
  'core',
  'capture',
  'link',
  'netfilter',
  'net',
  'socket',
  'netns',
  'app',
  'tools',
  'k8s',
  'story',
  'node-snapshot',
  'harness',
  'cli',
];

/** Packages src/ may import besides its own files (the declared runtime dependencies; tsx: src/cli's optional loader of .ts scenarios). */
const PACKAGES = ['eventemitter3', 'ipaddr.js', 'seedrandom', '@noble/hashes', 'yaml', 'tsx'];
/** Runtime dependencies of the command line only: `packetlab bench` times with benchmark, `packetlab sweep` runs on piscina. */
const CLI_PACKAGES = ['benchmark', 'piscina'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports. */
function importsOf(text: string): string[] {
  const specifiers: string[] = [];
  for (const match of text.matchAll(/^\s*(?:import|export)\b[^'";]*?from\s+'([^']+)'/gm))
    specifiers.push(match[1]!);
  for (const match of text.matchAll(/^\s*import\s+'([^']+)'/gm)) specifiers.push(match[1]!);
  for (const match of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) specifiers.push(match[1]!);
  return specifiers;
}

/** The layer of a path under src/ ('index' for src/index.ts, which may import everything). */
function layerOf(path: string): string {
  const parts = relative('src', path).split('/');
  return parts.length === 1 ? 'index' : parts[0]!;
}

function violations(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles('src')) {
    const layer = layerOf(file);
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) {
        const isNode = specifier.startsWith('node:');
        const allowed = layer === 'cli' ? [...PACKAGES, ...CLI_PACKAGES] : PACKAGES;
        const isPackage = allowed.some((name) => specifier === name || specifier.startsWith(`${name}/`));
        if (isNode ? layer !== 'cli' : !isPackage) found.push(`${file}: imports ${specifier}`);
        continue;
      }
      const target = normalize(join(dirname(file), specifier));
      if (!target.startsWith('src/')) {
        found.push(`${file}: imports ${specifier}, outside src/`);
        continue;
      }
      const targetLayer = layerOf(target);
      if (layer === 'index' || targetLayer === layer) continue;
      if (targetLayer === 'index' || LAYERS.indexOf(targetLayer) > LAYERS.indexOf(layer)) {
        found.push(`${file}: ${layer} imports ${targetLayer} (${specifier}), a layer above it`);
      }
    }
  }
  return found;
}

describe('layering', () => {
  it('knows every folder of src/', () => {
    const folders = readdirSync('src', { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !LAYERS.includes(folder))).toEqual([]);
  });

  it('finds the imports of a file, static, re-exported and dynamic', () => {
    const text = [
      "import { a } from '../net/a.ts';",
      "import type {\n  B,\n} from '../k8s/b.ts';",
      "export { c } from './c.ts';",
      "const d = await import('../../scenarios/d.ts');",
      "// import { e } from 'not-a-statement';",
    ].join('\n');
    expect(importsOf(text)).toEqual(['../net/a.ts', '../k8s/b.ts', './c.ts', '../../scenarios/d.ts']);
  });

  it('has no import pointing upward, outside src/, or at Node outside src/cli', () => {
    expect(violations()).toEqual([]);
  });
});
