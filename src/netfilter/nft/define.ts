// nft's symbol scopes and includes, as a pass over the tokens before parsing (scanner.l: include, parser_bison.y:
// define/redefine/undefine, `$NAME` in expressions): `define NAME = VALUE` records the value's tokens (its own
// `$refs` expanded), `$NAME` is replaced by them, a `{ ... }` value inside braces is flattened into the enclosing
// set as nft's evaluator merges nested sets, and `include "FILE"` inserts the tokens of a file of the simulation
// (an absolute path, or a name searched in the `-I` directories and /etc; a glob that matches nothing is no error).
// Not supported: scopes (a define inside a table block is global here), variables in table names (nft 1.0.6
// refuses them too: a syntax error), variables inside quoted strings.

import { type Token, tokenize } from './lexer.ts';
import { type ErrorRecord, errorAt, type Location, Source, span } from './location.ts';

/** Where `include` reads files: the simulation's file system. */
export interface IncludeFiles {
  /** The file's text, or undefined when there is none. */
  read(path: string): string | undefined;
  /** Every path there is, for globs. */
  paths(): Iterable<string>;
  /** `-I` directories, searched before /etc for a relative name. */
  readonly dirs: readonly string[];
}

export type Expanded =
  | { readonly ok: true; readonly tokens: readonly Token[] }
  | { readonly ok: false; readonly error: ErrorRecord };

/** nft's MAX_INCLUDE_DEPTH. */
const MAX_INCLUDE_DEPTH = 16;

const FAMILY_WORDS = new Set(['ip', 'inet', 'ip6', 'arp', 'bridge', 'netdev', 'table']);

class Failure {
  constructor(readonly error: ErrorRecord) {}
}

/** Expands defines, variables and includes in `tokens` (which end with one eof token); never throws. */
export function expandDefines(
  tokens: readonly Token[],
  input: Source,
  files: IncludeFiles | undefined,
): Expanded {
  const plain = tokens.every(
    (token) =>
      !(token.kind === 'punct' && token.text === '$') &&
      !(
        token.kind === 'word' &&
        (token.text === 'define' || token.text === 'include' || token.text.endsWith('define'))
      ),
  );
  if (plain) return { ok: true, tokens };
  const symbols = new Map<string, readonly Token[]>();
  try {
    const out: Token[] = [];
    expandInto(out, tokens, { symbols, files, input }, 0);
    out.push(tokens[tokens.length - 1]!);
    return { ok: true, tokens: out };
  } catch (failure) {
    if (failure instanceof Failure) return { ok: false, error: failure.error };
    throw failure;
  }
}

function atCommandStart(out: readonly Token[]): boolean {
  const last = out[out.length - 1];
  return last === undefined || last.kind === 'newline' || last.kind === 'semicolon';
}

/** Copies `tokens` (without their eof) into `out`, expanding as it goes. */
interface Context {
  readonly symbols: Map<string, readonly Token[]>;
  readonly files: IncludeFiles | undefined;
  readonly input: Source;
}

function expandInto(out: Token[], tokens: readonly Token[], ctx: Context, depth: number): void {
  const { symbols } = ctx;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'eof') return;
    if (token.kind === 'word' && atCommandStart(out)) {
      if (token.text === 'define' || token.text === 'redefine') {
        i = define(tokens, i, symbols, token.text === 'redefine');
        continue;
      }
      if (token.text === 'undefine') {
        const name = tokens[i + 1];
        if (name?.kind !== 'word') syntaxError(name ?? token);
        symbols.delete(name.text);
        i++;
        continue;
      }
      if (token.text === 'include') {
        i = include(out, tokens, i, ctx, depth);
        continue;
      }
    }
    if (token.kind === 'punct' && token.text === '$') {
      const previous = out[out.length - 1];
      if (previous !== undefined && previous.kind === 'word' && FAMILY_WORDS.has(previous.text))
        throw new Failure(errorAt(token.loc, "syntax error, unexpected '$', expecting string"));
      const value = variable(tokens, i, symbols);
      i++;
      out.push(...flattened(value, previous));
      continue;
    }
    out.push(token);
  }
}

/**
 * A set variable written as an element of a set (`{ $PORTS, 443 }`: after `{` or `,`) gives its elements, as nft
 * merges a set inside a set (evaluate.c: expr_evaluate_set); anywhere else it keeps its braces.
 */
function flattened(value: readonly Token[], previous: Token | undefined): readonly Token[] {
  const inSet = previous?.kind === 'punct' && (previous.text === '{' || previous.text === ',');
  const isSet = value[0]?.kind === 'punct' && value[0].text === '{';
  return inSet && isSet ? value.slice(1, -1) : value;
}

function syntaxError(token: Token): never {
  throw new Failure(errorAt(token.loc, 'syntax error, unexpected end of file'));
}

/** `$NAME` at `i`: the tokens it stands for, or nft's error on the name. */
function variable(
  tokens: readonly Token[],
  i: number,
  symbols: Map<string, readonly Token[]>,
): readonly Token[] {
  const name = tokens[i + 1];
  if (name === undefined || name.kind !== 'word')
    throw new Failure(errorAt((name ?? tokens[i]!).loc, 'syntax error, unexpected end of file'));
  const value = symbols.get(name.text);
  if (value === undefined) throw new Failure(errorAt(name.loc, `unknown identifier '${name.text}'`));
  return value;
}

/** `define NAME = VALUE` up to the end of the line; returns the index of its last token. */
function define(
  tokens: readonly Token[],
  i: number,
  symbols: Map<string, readonly Token[]>,
  redefine: boolean,
): number {
  const name = tokens[i + 1]!;
  if (name.kind !== 'word') throw new Failure(errorAt(name.loc, 'syntax error, unexpected end of file'));
  const equals = tokens[i + 2]!;
  if (!(equals.kind === 'punct' && equals.text === '='))
    throw new Failure(errorAt(equals.loc, "syntax error, expecting '='"));
  if (!redefine && symbols.has(name.text))
    throw new Failure(errorAt(name.loc, `redefinition of symbol '${name.text}'`));
  const value: Token[] = [];
  let j = i + 3;
  let braces = 0;
  for (; j < tokens.length; j++) {
    const token = tokens[j]!;
    if (token.kind === 'eof' || ((token.kind === 'newline' || token.kind === 'semicolon') && braces === 0))
      break;
    if (token.kind === 'newline') continue;
    if (token.kind === 'punct' && token.text === '$') {
      value.push(...flattened(variable(tokens, j, symbols), value[value.length - 1]));
      j++;
      continue;
    }
    if (token.kind === 'punct' && token.text === '{') braces++;
    if (token.kind === 'punct' && token.text === '}') braces--;
    value.push(token);
  }
  symbols.set(name.text, value);
  return j - 1;
}

function isGlob(name: string): boolean {
  return /[*?[]/.test(name);
}

function globPattern(glob: string): RegExp {
  let pattern = '';
  for (const c of glob) {
    if (c === '*') pattern += '[^/]*';
    else if (c === '?') pattern += '[^/]';
    else pattern += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}

/** The paths `include "NAME"` reads, in order (scanner.l: include_glob / include_file). */
function resolveInclude(name: string, files: IncludeFiles): string[] | undefined {
  const candidates = name.startsWith('/') ? [name] : [...files.dirs, '/etc'].map((dir) => `${dir}/${name}`);
  if (isGlob(name)) {
    const patterns = candidates.map(globPattern);
    return [...files.paths()].filter((path) => patterns.some((pattern) => pattern.test(path))).sort();
  }
  for (const path of candidates) if (files.read(path) !== undefined) return [path];
  return undefined;
}

function include(out: Token[], tokens: readonly Token[], i: number, ctx: Context, depth: number): number {
  const { files } = ctx;
  const keyword = tokens[i]!;
  const name = tokens[i + 1]!;
  if (name.kind !== 'quoted') throw new Failure(errorAt(name.loc, 'syntax error, expecting quoted string'));
  const end = tokens[i + 2];
  const loc: Location =
    end !== undefined && end.kind === 'newline' ? span(keyword.loc, end.loc) : span(keyword.loc, name.loc);
  if (depth >= MAX_INCLUDE_DEPTH)
    throw new Failure(errorAt(loc, `Include nested too deeply, max ${MAX_INCLUDE_DEPTH} levels`));
  const paths = files === undefined ? undefined : resolveInclude(name.text, files);
  if (paths === undefined) throw new Failure(errorAt(loc, `File not found: ${name.text}`));
  for (const path of paths) {
    const source = new Source(files!.read(path) ?? '', path, {
      source: keyword.loc.source ?? ctx.input,
      loc,
    });
    const included = tokenize(source.text).map((token) => ({ ...token, loc: { ...token.loc, source } }));
    expandInto(out, included, ctx, depth + 1);
    // The included file's last command ends where the file does.
    if (!atCommandStart(out)) out.push({ ...keyword, kind: 'newline', text: '\n' });
  }
  return i + 1;
}
