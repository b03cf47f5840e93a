// Recursive-descent parser for nft command input (`nft -f FILE`, `nft 'CMD; CMD'`): commands, `table { }`
// blocks with chains, sets and maps, chain specs with named priorities. A syntax error stops at the first
// offending token, as bison does; evaluation errors are reported only when the whole input parsed.
// Not supported: object types other than counter, quota and limit, IPv6 packets.

import type { BaseChainSpec, ChainType, DataType, Family, HookName, NamedObjectType } from '../ir.ts';
import type {
  ChainDef,
  Command,
  FlowtableDef,
  Named,
  NftFamily,
  ParsedRule,
  RawElement,
  SetDef,
  TableRef,
} from './ast.ts';
import { expandDefines, type IncludeFiles } from './define.ts';
import { familyHasHook, familyHasType, hookNeedsDevice, namedPriority } from './families.ts';
import { parseFlowtableBlock } from './flowtables.ts';
import type { InterfaceNames } from './ifindex.ts';
import { KEYWORDS, type Token, tokenize } from './lexer.ts';
import { type ErrorRecord, errorAt, type Location, type Source, span } from './location.ts';
import { OBJECT_LISTS, type ObjectDef, parseObjectBody } from './objects.ts';
import { parseElements, parseRule, parseTime } from './rule.ts';
import { parseTypeof } from './set-typeof.ts';
import { ParseFailure, TokenStream } from './stream.ts';
import { SET_TYPES } from './types.ts';

export type ParseResult =
  | { readonly ok: true; readonly commands: readonly Command[] }
  /** Every syntax error (nft reports up to 10), or else every evaluation error. */
  | { readonly ok: false; readonly errors: readonly ErrorRecord[] };

/** nft's parser_max_errors: after this many syntax errors the parse stops. */
const MAX_ERRORS = 10;

/** Ends the parse: too many errors, or the end of input reached while recovering. */
class Abort {}

const FAMILIES: readonly NftFamily[] = ['ip', 'inet', 'ip6', 'arp', 'bridge', 'netdev'];
const HOOKS: readonly HookName[] = [
  'prerouting',
  'input',
  'forward',
  'output',
  'postrouting',
  'ingress',
  'egress',
];
const CHAIN_TYPES: readonly ChainType[] = ['filter', 'nat', 'route'];

/** Parses a whole input (`include` reads `files`; interface names resolve against `interfaces`); never throws. */
export function parseNft(source: Source, files?: IncludeFiles, interfaces?: InterfaceNames): ParseResult {
  const expanded = expandDefines(tokenize(source.text), source, files);
  if (!expanded.ok) return { ok: false, errors: [expanded.error] };
  const stream = new TokenStream(expanded.tokens);
  const parser = new CommandParser(stream, interfaces);
  let commands: Command[] = [];
  try {
    commands = parser.all();
  } catch (failure) {
    if (failure instanceof ParseFailure) parser.syntaxErrors.push(failure.error);
    else if (!(failure instanceof Abort)) throw failure;
  }
  if (parser.syntaxErrors.length > 0) return { ok: false, errors: parser.syntaxErrors };
  if (stream.evalErrors.length > 0) return { ok: false, errors: stream.evalErrors };
  return { ok: true, commands };
}

class CommandParser {
  readonly syntaxErrors: ErrorRecord[] = [];

  constructor(
    private readonly s: TokenStream,
    private readonly interfaces?: InterfaceNames,
  ) {}

  all(): Command[] {
    const commands: Command[] = [];
    this.s.skipNewlines();
    while (this.s.peek().kind !== 'eof') {
      try {
        commands.push(...this.command());
        const end = this.s.peek();
        if (end.kind === 'newline' || end.kind === 'semicolon') this.s.next();
        else if (end.kind !== 'eof') this.s.fail(end, 'end of file or newline or semicolon');
      } catch (failure) {
        this.recover(failure);
      }
      this.s.skipNewlines();
    }
    return commands;
  }

  /**
   * bison's error recovery as nft's grammar has it (`error stmt_separator` in the line and block rules):
   * record the error, drop tokens through the next newline or semicolon, and go on in the same block.
   */
  private recover(failure: unknown): void {
    if (!(failure instanceof ParseFailure)) throw failure;
    this.syntaxErrors.push(failure.error);
    if (failure.atEnd || this.syntaxErrors.length >= MAX_ERRORS) throw new Abort();
    for (;;) {
      const token = this.s.next();
      if (token.kind === 'newline' || token.kind === 'semicolon') return;
      if (token.kind === 'eof') throw new Abort();
    }
  }

  private command(): Command[] {
    const first = this.s.peek();
    if (first.kind !== 'word') return this.s.fail(first);
    switch (first.text) {
      case 'add':
      case 'create': {
        this.s.next();
        return [this.add(first, first.text === 'create')];
      }
      case 'insert':
      case 'replace': {
        this.s.next();
        this.s.expectWord('rule', 'rule');
        return [this.rule(first, first.text)];
      }
      case 'delete':
        this.s.next();
        return [this.delete(first)];
      case 'get': {
        // `get element FAMILY TABLE SET { KEYS }` (parser_bison.y: get_cmd).
        this.s.next();
        this.s.expectWord('element', 'element');
        const ref = this.tableRef();
        const set = this.s.name();
        const elements = parseElements(this.s, { map: false });
        return [{ kind: 'get-element', ref, set, elements, loc: this.loc(first) }];
      }
      case 'flush':
        this.s.next();
        return [this.flush(first)];
      case 'reset':
        this.s.next();
        return [this.reset(first)];
      case 'list':
        this.s.next();
        return [this.list(first)];
      case 'table':
      case 'chain':
      case 'set':
      case 'map':
      case 'element':
      case 'rule':
        return [this.add(first, false)];
      default:
        if (KEYWORDS.has(first.text) && !FAMILIES.includes(first.text as NftFamily))
          return this.s.fail(first);
        return [this.rule(first, 'add')];
    }
  }

  /** A command's location: its first token through the newline or semicolon that ends it. */
  private loc(first: Token): Location {
    const end = this.s.peek();
    const last = end.kind === 'newline' || end.kind === 'semicolon' ? end : this.s.previous();
    return span(first.loc, last.loc);
  }

  private family(): { family: NftFamily | undefined; loc: Location | undefined } {
    const token = this.s.peek();
    if (token.kind === 'word' && FAMILIES.includes(token.text as NftFamily)) {
      this.s.next();
      return { family: token.text as NftFamily, loc: token.loc };
    }
    return { family: undefined, loc: undefined };
  }

  /** `[family] NAME`. */
  private tableRef(): TableRef {
    const { family, loc } = this.family();
    const table = this.s.name();
    return { family: family ?? 'ip', familyLoc: loc, table };
  }

  private irFamily(ref: TableRef): Family {
    return ref.family;
  }

  private add(first: Token, exclusive: boolean): Command {
    const object = this.s.peek();
    switch (object.kind === 'word' ? object.text : '') {
      case 'table': {
        this.s.next();
        const ref = this.tableRef();
        if (!this.s.isPunct('{'))
          return {
            kind: 'add-table',
            exclusive,
            ref,
            comment: undefined,
            chains: [],
            sets: [],
            loc: this.loc(first),
          };
        return this.tableBlock(first, ref, exclusive);
      }
      case 'chain': {
        this.s.next();
        const ref = this.tableRef();
        const name = this.s.name();
        const chain = this.s.isPunct('{')
          ? this.chainBlock(name, this.irFamily(ref))
          : { name, spec: undefined, comment: undefined, rules: [], loc: name.loc };
        return { kind: 'add-chain', exclusive, ref, chain, loc: this.loc(first) };
      }
      case 'rule':
        this.s.next();
        return this.rule(first, 'add');
      case 'set':
      case 'map': {
        this.s.next();
        const ref = this.tableRef();
        const name = this.s.name();
        const set = this.setBlock(name, object.text === 'map');
        return { kind: 'add-set', exclusive, ref, set, loc: this.loc(first) };
      }
      case 'flowtable': {
        this.s.next();
        const ref = this.tableRef();
        const flowtable = parseFlowtableBlock(this.s, this.s.name());
        return { kind: 'add-flowtable', exclusive, ref, flowtable, loc: this.loc(first) };
      }
      case 'counter':
      case 'quota':
      case 'limit': {
        this.s.next();
        const ref = this.tableRef();
        const name = this.s.name();
        const def = parseObjectBody(this.s, object.text as NamedObjectType, name, first.loc);
        return { kind: 'add-object', exclusive, ref, object: def, loc: this.loc(first) };
      }
      case 'element': {
        this.s.next();
        const ref = this.tableRef();
        const set = this.s.name();
        const elements = parseElements(this.s, { map: false });
        return {
          kind: exclusive ? 'create-element' : 'add-element',
          ref,
          set,
          elements,
          loc: this.loc(first),
        };
      }
      default:
        if (
          object.kind === 'word' &&
          KEYWORDS.has(object.text) &&
          !FAMILIES.includes(object.text as NftFamily)
        )
          return this.s.fail(object, 'string');
        return this.rule(first, 'add');
    }
  }

  /** `[family] TABLE CHAIN [handle N | position N | index N] STATEMENTS`. */
  private rule(first: Token, mode: 'add' | 'insert' | 'replace'): Command {
    const ref = this.tableRef();
    const chain = this.s.name();
    let handle: { value: number; loc: Location } | undefined;
    const keyword = this.s.peek();
    if (
      keyword.kind === 'word' &&
      (keyword.text === 'handle' || keyword.text === 'position' || keyword.text === 'index')
    ) {
      this.s.next();
      const value = this.s.number();
      if (keyword.text === 'index')
        this.s.report(errorAt(keyword.loc, 'rule index is not supported by packetlab'));
      handle = { value: value.value, loc: value.loc };
    }
    if (mode === 'replace' && handle === undefined) this.s.fail(this.s.peek(), 'handle');
    const rule = parseRule(this.s, {
      family: this.irFamily(ref),
      inBlock: false,
      interfaces: this.interfaces,
    });
    return { kind: 'add-rule', mode, ref, chain, handle, rule, loc: this.loc(first) };
  }

  private delete(first: Token): Command {
    const object = this.s.next();
    switch (object.text) {
      case 'table':
        return { kind: 'delete-table', ref: this.tableRef(), loc: this.loc(first) };
      case 'chain': {
        const ref = this.tableRef();
        return { kind: 'delete-chain', ref, chain: this.s.name(), loc: this.loc(first) };
      }
      case 'rule': {
        const ref = this.tableRef();
        const chain = this.s.name();
        this.s.expectWord('handle', 'handle');
        const value = this.s.number();
        return {
          kind: 'delete-rule',
          ref,
          chain,
          handle: { value: value.value, loc: value.loc },
          loc: this.loc(first),
        };
      }
      case 'set':
      case 'map': {
        const ref = this.tableRef();
        return {
          kind: 'delete-set',
          map: object.text === 'map',
          ref,
          set: this.s.name(),
          loc: this.loc(first),
        };
      }
      case 'element': {
        const ref = this.tableRef();
        const set = this.s.name();
        const elements = parseElements(this.s, { map: false });
        return { kind: 'delete-element', ref, set, elements, loc: this.loc(first) };
      }
      case 'flowtable': {
        const ref = this.tableRef();
        return { kind: 'delete-flowtable', ref, flowtable: this.s.name(), loc: this.loc(first) };
      }
      case 'counter':
      case 'quota':
      case 'limit': {
        const ref = this.tableRef();
        const type = object.text as NamedObjectType;
        if (this.s.acceptWord('handle') !== undefined) {
          const value = this.s.number();
          const handle = { value: value.value, loc: value.loc };
          return { kind: 'delete-object', ref, type, name: undefined, handle, loc: this.loc(first) };
        }
        const name = this.s.name();
        return { kind: 'delete-object', ref, type, name, handle: undefined, loc: this.loc(first) };
      }
      default:
        return this.s.fail(object);
    }
  }

  /** `reset counter|quota [family] TABLE NAME`, `reset counters|quotas [FAMILY | table [family] TABLE]`. */
  private reset(first: Token): Command {
    const object = this.s.peek();
    const text = object.kind === 'word' ? object.text : '';
    if (text === 'counter' || text === 'quota') {
      this.s.next();
      const ref = this.tableRef();
      return { kind: 'reset-object', ref, type: text, name: this.s.name(), loc: this.loc(first) };
    }
    if (text === 'counters' || text === 'quotas') {
      this.s.next();
      return this.objectList(first, 'reset-objects', OBJECT_LISTS[text]!);
    }
    return this.s.fail(object, 'counter or counters or quotas or quota');
  }

  private objectList(first: Token, kind: 'list-objects' | 'reset-objects', type: NamedObjectType): Command {
    if (this.s.acceptWord('table') !== undefined) {
      const table = this.tableRef();
      return { kind, type, family: table.family, table, loc: this.loc(first) };
    }
    return { kind, type, family: this.family().family, table: undefined, loc: this.loc(first) };
  }

  private flush(first: Token): Command {
    const object = this.s.next();
    switch (object.text) {
      case 'ruleset':
        return { kind: 'flush-ruleset', family: this.family().family, loc: this.loc(first) };
      case 'table':
        return { kind: 'flush-table', ref: this.tableRef(), loc: this.loc(first) };
      case 'chain': {
        const ref = this.tableRef();
        return { kind: 'flush-chain', ref, chain: this.s.name(), loc: this.loc(first) };
      }
      case 'set':
      case 'map': {
        const ref = this.tableRef();
        return {
          kind: 'flush-set',
          map: object.text === 'map',
          ref,
          set: this.s.name(),
          loc: this.loc(first),
        };
      }
      default:
        return this.s.fail(object);
    }
  }

  private list(first: Token): Command {
    const object = this.s.next();
    switch (object.text) {
      case 'ruleset':
        return { kind: 'list-ruleset', family: this.family().family, loc: this.loc(first) };
      case 'tables':
      case 'chains':
      case 'sets':
      case 'maps':
      case 'flowtables':
        return { kind: `list-${object.text}`, family: this.family().family, loc: this.loc(first) };
      case 'table':
        return { kind: 'list-table', ref: this.tableRef(), loc: this.loc(first) };
      case 'counters':
      case 'quotas':
      case 'limits':
        return this.objectList(first, 'list-objects', OBJECT_LISTS[object.text]!);
      case 'counter':
      case 'quota':
      case 'limit': {
        const ref = this.tableRef();
        const type = object.text as NamedObjectType;
        return { kind: 'list-object', ref, type, name: this.s.name(), loc: this.loc(first) };
      }
      case 'flowtable': {
        const ref = this.tableRef();
        return { kind: 'list-flowtable', ref, flowtable: this.s.name(), loc: this.loc(first) };
      }
      case 'chain': {
        const ref = this.tableRef();
        return { kind: 'list-chain', ref, chain: this.s.name(), loc: this.loc(first) };
      }
      case 'set':
      case 'map': {
        const ref = this.tableRef();
        return {
          kind: 'list-set',
          map: object.text === 'map',
          ref,
          set: this.s.name(),
          loc: this.loc(first),
        };
      }
      default:
        return this.s.fail(object);
    }
  }

  // ---- blocks ------------------------------------------------------------------------------------------------

  /** Runs `item` for each newline- or semicolon-separated item of a `{ }` block. */
  private block(item: () => void, options: { closeAfterItem: boolean }): void {
    this.s.expectPunct('{', "'{'");
    for (;;) {
      this.s.skipNewlines();
      if (this.s.acceptPunct('}') !== undefined) return;
      if (this.s.peek().kind === 'eof') this.s.fail(this.s.peek());
      try {
        item();
        const end = this.s.peek();
        if (end.kind === 'newline' || end.kind === 'semicolon') this.s.next();
        else if (!(options.closeAfterItem && end.kind === 'punct' && end.text === '}'))
          this.s.fail(end, 'newline or semicolon');
      } catch (failure) {
        this.recover(failure);
      }
    }
  }

  private tableBlock(first: Token, ref: TableRef, exclusive: boolean): Command {
    const chains: ChainDef[] = [];
    const sets: SetDef[] = [];
    const flowtables: FlowtableDef[] = [];
    const objects: ObjectDef[] = [];
    let comment: string | undefined;
    const family = this.irFamily(ref);
    this.block(
      () => {
        const token = this.s.next();
        switch (token.text) {
          case 'chain':
            chains.push(this.chainBlock(this.s.name(), family));
            break;
          case 'set':
          case 'map':
            sets.push(this.setBlock(this.s.name(), token.text === 'map', { inTable: true }));
            break;
          case 'comment':
            comment = this.quoted();
            break;
          case 'flowtable':
            flowtables.push(parseFlowtableBlock(this.s, this.s.name()));
            break;
          case 'counter':
          case 'quota':
          case 'limit':
            objects.push(parseObjectBody(this.s, token.text, this.s.name(), undefined));
            break;
          case 'flags':
            this.s.next();
            this.s.report(errorAt(token.loc, 'table flags are not supported by packetlab'));
            break;
          default:
            this.s.fail(token);
        }
      },
      { closeAfterItem: false },
    );
    return {
      kind: 'add-table',
      exclusive,
      ref,
      comment,
      chains,
      sets,
      flowtables,
      objects,
      loc: this.loc(first),
    };
  }

  private quoted(): string {
    const token = this.s.peek();
    if (token.kind !== 'quoted' && token.kind !== 'word') this.s.fail(token, 'quoted string');
    this.s.next();
    return token.text;
  }

  private chainBlock(name: Named, family: Family): ChainDef {
    const start = this.s.peek();
    let spec: BaseChainSpec | undefined;
    let comment: string | undefined;
    const rules: ParsedRule[] = [];
    this.block(
      () => {
        const token = this.s.peek();
        if (token.kind === 'word' && token.text === 'type') spec = this.chainSpec(spec, family);
        else if (token.kind === 'word' && token.text === 'policy') {
          this.s.next();
          const policy = this.s.next();
          if (policy.text !== 'accept' && policy.text !== 'drop') this.s.fail(policy);
          if (spec === undefined)
            this.s.report(errorAt(span(token.loc, policy.loc), 'policy can only be set on base chains'));
          else spec = { ...spec, policy: policy.text };
        } else if (token.kind === 'word' && token.text === 'comment') {
          this.s.next();
          comment = this.quoted();
        } else rules.push(parseRule(this.s, { family, inBlock: true, interfaces: this.interfaces }));
      },
      { closeAfterItem: false },
    );
    return { name, spec, comment, rules, loc: span(start.loc, this.s.previous().loc) };
  }

  /** `type T hook H [device D | devices = { D, ... }] priority P`, checked for the family (families.ts). */
  private chainSpec(previous: BaseChainSpec | undefined, family: Family): BaseChainSpec {
    const typeWord = this.s.expectWord('type');
    const type = this.s.next();
    if (type.kind !== 'word') this.s.fail(type, 'string');
    this.s.expectWord('hook');
    const hook = this.s.next();
    if (hook.kind !== 'word') this.s.fail(hook, 'string');
    const deviceWord = this.s.peek();
    const devices = this.chainDevices();
    const deviceLoc = devices === undefined ? undefined : span(deviceWord.loc, this.s.previous().loc);
    const priorityToken = this.s.expectWord('priority');
    let value: number | undefined;
    let name: string | undefined;
    const next = this.s.peek();
    if (next.kind === 'punct' && next.text === '-') {
      this.s.next();
      value = -this.s.number().value;
    } else if (next.kind === 'number') value = this.s.next().value;
    else if (next.kind === 'word' || next.kind === 'quoted') {
      name = this.s.next().text;
      const sign = this.s.peek();
      if (sign.kind === 'punct' && (sign.text === '+' || sign.text === '-')) {
        this.s.next();
        const offset = this.s.number().value;
        value = sign.text === '-' ? -offset : offset;
      } else value = 0;
    } else this.s.fail(next);
    const priorityLoc = span(priorityToken.loc, this.s.previous().loc);
    const hookName = hook.text as HookName;
    if (!CHAIN_TYPES.includes(type.text as ChainType)) this.s.report(errorAt(type.loc, 'unknown chain type'));
    if (!HOOKS.includes(hookName)) this.s.report(errorAt(hook.loc, 'unknown chain hook'));
    else if (!familyHasHook(family, hookName))
      this.s.report(errorAt(hook.loc, `The ${family} family does not support this hook`));
    let priority = value ?? 0;
    if (name !== undefined && HOOKS.includes(hookName)) {
      const standard = namedPriority(family, hookName, name);
      if (standard === undefined)
        this.s.report(errorAt(priorityLoc, 'invalid priority expression value in this context.'));
      else priority = standard + priority;
    }
    if (HOOKS.includes(hookName) && familyHasHook(family, hookName)) {
      if (deviceLoc !== undefined && !hookNeedsDevice(family, hookName))
        this.s.report(errorAt(deviceLoc, 'This chain type cannot be bound to device'));
      else if (devices === undefined && hookNeedsDevice(family, hookName))
        this.s.report(
          errorAt(span(typeWord.loc, this.s.previous().loc), "Missing `device' in this chain definition"),
        );
    }
    // The kernel has no chain type of that name for the family (nf_tables_chain_type_lookup: ENOENT).
    if (CHAIN_TYPES.includes(type.text as ChainType) && !familyHasType(family, type.text as ChainType))
      this.s.report(errorAt(type.loc, 'Could not process rule: No such file or directory'));
    return {
      type: type.text as ChainType,
      hook: hookName,
      priority,
      policy: previous?.policy ?? 'accept',
      devices,
    };
  }

  /** `device NAME` or `devices = { A, B }` (sorted as nft sends the set's elements); undefined when absent. */
  private chainDevices(): string[] | undefined {
    if (this.s.acceptWord('device') !== undefined) return [this.deviceName()];
    if (this.s.acceptWord('devices') === undefined) return undefined;
    this.s.expectPunct('=', "'='");
    this.s.expectPunct('{', "'{'");
    const names = [this.deviceName()];
    while (this.s.acceptPunct(',') !== undefined) {
      if (this.s.isPunct('}')) break;
      names.push(this.deviceName());
    }
    this.s.expectPunct('}', "comma or '}'");
    return [...new Set(names)].sort();
  }

  private deviceName(): string {
    const token = this.s.next();
    if (token.kind !== 'word' && token.kind !== 'quoted') this.s.fail(token, 'string');
    return token.text;
  }

  private setBlock(name: Named, map: boolean, options: { inTable: boolean } = { inTable: false }): SetDef {
    const start = this.s.peek();
    let keyType: DataType[] = [];
    let dataType: DataType | undefined;
    const flags: SetDef['flags'][number][] = [];
    let elements: RawElement[] = [];
    let comment: string | undefined;
    let timeout: number | undefined;
    let size: number | undefined;
    let policy: 'memory' | undefined;
    let gcInterval: number | undefined;
    let autoMerge: boolean | undefined;
    let counter: boolean | undefined;
    let typeofText: SetDef['typeofText'];
    let keyKnown = false;
    this.block(
      () => {
        const token = this.s.next();
        switch (token.text) {
          case 'type': {
            const types = [this.dataType()];
            while (this.s.acceptPunct('.') !== undefined) types.push(this.dataType());
            keyKnown = !types.includes(undefined);
            keyType = types.map((type) => type ?? 'integer');
            if (this.s.acceptPunct(':') !== undefined) {
              if (!map) this.s.fail(this.s.previous());
              const data = this.s.peek();
              if (data.kind === 'word' && data.text === 'verdict') {
                this.s.next();
                dataType = 'verdict';
              } else {
                dataType = this.dataType() ?? 'integer';
                if (this.s.isPunct('.'))
                  this.s.report(
                    errorAt(this.s.peek().loc, 'concatenated map data is not supported by packetlab'),
                  );
                while (this.s.acceptPunct('.') !== undefined) this.dataType();
              }
            } else if (map) this.s.fail(this.s.peek(), 'colon');
            break;
          }
          case 'typeof': {
            const key = parseTypeof(this.s);
            keyType = [...key.types];
            keyKnown = true;
            let data: string | undefined;
            if (this.s.acceptPunct(':') !== undefined) {
              if (!map) this.s.fail(this.s.previous());
              if (this.s.acceptWord('verdict') !== undefined) {
                dataType = 'verdict';
                data = 'verdict';
              } else {
                const value = parseTypeof(this.s);
                if (value.types.length > 1)
                  this.s.report(errorAt(token.loc, 'concatenated map data is not supported by packetlab'));
                dataType = value.types[0];
                data = value.text;
              }
            } else if (map) this.s.fail(this.s.peek(), 'colon');
            typeofText = { key: key.text, data };
            break;
          }
          case 'policy': {
            const value = this.s.next();
            if (value.text === 'memory') policy = 'memory';
            else if (value.text !== 'performance') this.s.fail(value);
            break;
          }
          case 'gc-interval': {
            const time = this.s.next();
            gcInterval = parseTime(time);
            if (gcInterval === undefined) this.s.fail(time);
            break;
          }
          case 'auto-merge':
            autoMerge = true;
            break;
          case 'counter':
            counter = true;
            break;
          case 'flags':
            do {
              const flag = this.s.next();
              if (
                flag.text === 'interval' ||
                flag.text === 'constant' ||
                flag.text === 'timeout' ||
                flag.text === 'dynamic'
              )
                flags.push(flag.text);
              else this.s.fail(flag);
            } while (this.s.acceptPunct(',') !== undefined);
            break;
          case 'elements':
            this.s.expectPunct('=', "'='");
            elements = parseElements(this.s, { map: false });
            break;
          case 'comment':
            comment = this.quoted();
            break;
          case 'size':
            size = this.s.number().value;
            break;
          case 'timeout': {
            const time = this.s.next();
            timeout = parseTime(time);
            if (timeout === undefined) this.s.fail(time);
            break;
          }
          default:
            this.s.fail(token);
        }
      },
      { closeAfterItem: true },
    );
    const loc = span(start.loc, this.s.previous().loc);
    if (!keyKnown)
      this.s.report(errorAt(options.inTable ? name.loc : loc, 'set definition does not specify key'));
    return {
      name,
      map,
      keyType,
      dataType,
      flags,
      elements,
      comment,
      timeout,
      size,
      policy,
      gcInterval,
      autoMerge,
      counter,
      typeofText,
      loc,
    };
  }

  /** A set key or data type; undefined (reported) when nft or packetlab does not know it. */
  private dataType(): DataType | undefined {
    const token = this.s.next();
    if (token.kind !== 'word') this.s.fail(token, 'string');
    if (!(SET_TYPES as readonly string[]).includes(token.text)) {
      this.s.report(errorAt(token.loc, `unknown datatype ${token.text}`));
      return undefined;
    }
    return token.text as DataType;
  }
}
