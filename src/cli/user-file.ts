// `packetlab run FILE`: the user's own scenario, a module (.js, .mjs, .ts, .mts: its default export is a function
// `({seed, args}) => StoryResult | Story`, synchronous) or a declarative file (.yaml, .yml, .json: read here, parsed
// with `yaml`, checked and run by src/story/declarative.ts). A .ts file needs tsx: a checkout has it registered by
// bin/packetlab.mjs; an installed package looks for it beside the file, then beside packetlab.

import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LineCounter, parseDocument } from 'yaml';
import { formatPath, type LabPath, readLab, runLab } from '../story/declarative.ts';
import { Story, type StoryResult } from '../story/story.ts';
import type { CommandScenario } from './main.ts';

const MODULE = /\.(m?js|cjs|m?ts|cts)$/;
const DECLARATIVE = /\.(ya?ml|json)$/;
const TYPESCRIPT = /\.(m?ts|cts)$/;

/** A run target naming a file rather than a scenario: it has a path separator or a known extension. */
export function isUserFile(name: string): boolean {
  return name.includes('/') || MODULE.test(name) || DECLARATIVE.test(name);
}

export type Loaded =
  | { readonly scenario: CommandScenario }
  | { readonly error: string; readonly stack?: string; readonly exitCode: number };

export async function loadUserScenario(file: string): Promise<Loaded> {
  if (!MODULE.test(file) && !DECLARATIVE.test(file))
    return {
      error: `packetlab: ${file}: not a scenario file (.ts, .js, .mjs, .yaml, .yml or .json)`,
      exitCode: 2,
    };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'No such file or directory' : code === 'EISDIR' ? 'Is a directory' : String(error);
    return { error: `packetlab: cannot read ${file}: ${why}`, exitCode: 2 };
  }
  return DECLARATIVE.test(file) ? declarative(file, text) : module(file);
}

/** Line and column (1-based) of the node at `path` in the document, when it can be found. */
function positionOf(
  doc: ReturnType<typeof parseDocument>,
  counter: LineCounter,
  path: LabPath,
  atKey: boolean,
): { line: number; col: number } | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    if (range !== undefined) {
      // An unknown key points at the key itself, a bad value at the value.
      const pair = atKey && depth === path.length && depth > 0 ? keyRange(doc, path) : undefined;
      return counter.linePos((pair ?? range)[0]);
    }
  }
  return undefined;
}

/** The source range of the key that ends `path` in its mapping. */
function keyRange(
  doc: ReturnType<typeof parseDocument>,
  path: LabPath,
): [number, number, number] | undefined {
  const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
  const items = (
    parent as { items?: { key?: { value?: unknown; range?: [number, number, number] } }[] } | undefined
  )?.items;
  return items?.find((item) => item.key?.value === path.at(-1))?.key?.range;
}

function declarative(file: string, text: string): Loaded {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax !== undefined) {
    const { line, col } = counter.linePos(syntax.pos[0]);
    return { error: `packetlab: ${file}:${line}:${col}: ${syntax.message}`, exitCode: 2 };
  }
  const read = readLab(doc.toJS());
  if (!read.ok) {
    const lines = read.errors.map((error) => {
      const at = positionOf(doc, counter, error.path, error.key === true);
      const where = at === undefined ? file : `${file}:${at.line}:${at.col}`;
      const path = error.path.length === 0 ? '' : `${formatPath(error.path)}: `;
      return `packetlab: ${where}: ${path}${error.message}`;
    });
    return { error: lines.join('\n'), exitCode: 2 };
  }
  const { lab } = read;
  const name = basename(file);
  return {
    scenario: { name: file, summary: '', run: ({ seed }) => runLab(lab, { seed, name }) },
  };
}

/** Loads a module file, as `import()` does; a TypeScript one returns its exports as an ES module would. */
type ModuleLoader = (url: string) => Promise<Record<string, unknown>>;

/**
 * tsx's tsImport, resolved from packetlab's own place (a checkout's devDependency, or the project's node_modules an
 * installed packetlab sits in); undefined without tsx. It loads a .ts whatever its package.json's type says.
 */
async function tsxLoader(): Promise<ModuleLoader | undefined> {
  let api: { tsImport: (url: string, parent: string) => Promise<Record<string, unknown>> };
  try {
    api = (await import('tsx/esm/api')) as typeof api;
  } catch {
    return undefined;
  }
  return (url) => api.tsImport(url, import.meta.url);
}

/** Node 22.18+/23.6+ loads erasable TypeScript itself (process.features.typescript), with no loader. */
function stripsTypes(): boolean {
  const features = process.features as { typescript?: string | false };
  return typeof features.typescript === 'string';
}

function isStoryResult(value: unknown): value is StoryResult {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record['scenario'] === 'string' &&
    typeof record['ok'] === 'boolean' &&
    Array.isArray(record['steps']) &&
    Array.isArray(record['checks'])
  );
}

/** What the default export returned, as a result; a Story is closed with result(). */
function asResult(file: string, value: unknown): StoryResult {
  if (value instanceof Story) return value.result();
  if (typeof value === 'object' && value !== null && typeof (value as Story).result === 'function')
    return (value as Story).result();
  if (isStoryResult(value)) return value;
  if (value instanceof Promise)
    throw new Error(
      `${file}: the default export returned a Promise: it must return a StoryResult or a Story`,
    );
  throw new Error(`${file}: the default export must return a StoryResult or a Story, got ${typeof value}`);
}

async function module(file: string): Promise<Loaded> {
  let load: ModuleLoader = (url) => import(url) as Promise<Record<string, unknown>>;
  if (TYPESCRIPT.test(file)) {
    const tsx = await tsxLoader();
    if (tsx !== undefined) load = tsx;
    else if (!stripsTypes())
      return {
        error: `packetlab: ${file}: a TypeScript scenario needs tsx (npm install --save-dev tsx), or compile it to .js`,
        exitCode: 2,
      };
  }
  let exported: unknown;
  try {
    exported = (await load(pathToFileURL(resolve(file)).href))['default'];
  } catch (error) {
    return {
      error: `packetlab: ${file}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      ...(error instanceof Error && error.stack !== undefined ? { stack: error.stack } : {}),
      exitCode: 1,
    };
  }
  // A CommonJS module compiled from `export default` carries it as exports.default.
  if (
    typeof exported === 'object' &&
    exported !== null &&
    typeof (exported as { default?: unknown }).default === 'function'
  )
    exported = (exported as { default: unknown }).default;
  if (typeof exported !== 'function')
    return {
      error: `packetlab: ${file}: its default export must be a function ({seed, args}) => StoryResult | Story`,
      exitCode: 2,
    };
  const run = exported as (options: { seed: string | undefined; args: readonly string[] }) => unknown;
  return {
    scenario: { name: file, summary: '', run: (options) => asResult(file, run(options)) },
  };
}
