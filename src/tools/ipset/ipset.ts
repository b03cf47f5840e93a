// The ipset command (ipset 7.17, src/ipset.c and lib/session.c): create, add, del, test, destroy, list (-n, -t,
// -o save), save, restore, flush, rename, swap, version, with -exist and -quiet anywhere on the line and the real
// tool's messages and exit codes (2 for a usage error, 1 for what the kernel refuses). Not here: help, -sorted,
// -resolve, -file, -o xml, IPv6 (family inet6), the skbinfo and forceadd options.

import { SET_TYPES, type SetElement, type SetTypeName } from '../../netfilter/ipset/element.ts';
import {
  type AddExtensions,
  MAX_COMMENT_SIZE,
  MAX_TIMEOUT,
  type SetExtensions,
} from '../../netfilter/ipset/extensions.ts';
import type { SetError } from '../../netfilter/ipset/hash-set.ts';
import type { ListPosition } from '../../netfilter/ipset/list-set.ts';
import {
  type CreateOptions,
  type IpSets,
  MAX_SET_NAME,
  type NamedSet,
  type SetsError,
} from '../../netfilter/ipset/sets.ts';
import type { Namespace } from '../../netns/namespace.ts';
import { type CommandResult, unsupported } from '../result.ts';
import { parseElements } from './element-text.ts';
import { listSets, saveSets } from './print.ts';

const VERSION = 'v7.17';
/** The set types ipset 7.17 knows that packetlab does not model. */
const OTHER_TYPES = [
  'hash:mac',
  'hash:ip,mac',
  'hash:ip,mark',
  'hash:net,net',
  'hash:ip,port,ip',
  'hash:ip,port,net',
  'hash:net,port,net',
  'bitmap:ip',
  'bitmap:ip,mac',
];
const TRY_HELP = "Try `ipset help' for more information.\n";

/** A failed command: the message after `ipset v7.17: `, and whether it is a usage error (exit 2, with the hint). */
interface Failure {
  readonly message: string;
  readonly usage: boolean;
  /** Printed as it is, without the `ipset v7.17: ` prefix (test's "is NOT in set"). */
  readonly bare?: boolean;
}

function usage(message: string): Failure {
  return { message, usage: true };
}

function refused(message: string): Failure {
  return { message, usage: false };
}

/** The commands and their old single-letter forms (ipset.c's ipset_commands). */
const COMMANDS: Readonly<Record<string, string>> = {
  create: 'create',
  n: 'create',
  '-N': 'create',
  add: 'add',
  '-A': 'add',
  del: 'del',
  '-D': 'del',
  test: 'test',
  '-T': 'test',
  destroy: 'destroy',
  x: 'destroy',
  '-X': 'destroy',
  list: 'list',
  '-L': 'list',
  save: 'save',
  '-S': 'save',
  restore: 'restore',
  '-R': 'restore',
  flush: 'flush',
  '-F': 'flush',
  rename: 'rename',
  e: 'rename',
  '-E': 'rename',
  swap: 'swap',
  w: 'swap',
  '-W': 'swap',
  version: 'version',
  '-V': 'version',
  '-v': 'version',
  help: 'help',
  '-H': 'help',
  '-h': 'help',
};

interface GlobalOptions {
  exist: boolean;
  quiet: boolean;
  names: boolean;
  terse: boolean;
  save: boolean;
}

/** What one command line (or restore line) printed; the session keeps going or stops at an error. */
interface Outcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly failure: Failure | undefined;
}

export function ipset(ns: Namespace, args: string[], stdin: string): CommandResult {
  const session = new Session(ns.netfilter.ipsets, () => ns.sim.now);
  const outcome = session.line(args, stdin, undefined);
  let stderr = outcome.stderr;
  if (outcome.failure !== undefined && !session.quiet) {
    stderr += outcome.failure.bare
      ? `${outcome.failure.message}\n`
      : `ipset ${VERSION}: ${outcome.failure.message}\n`;
    if (outcome.failure.usage) stderr += TRY_HELP;
  }
  return {
    stdout: outcome.stdout,
    stderr,
    exitCode: outcome.failure === undefined ? 0 : outcome.failure.usage ? 2 : 1,
  };
}

/** The kernel's refusals of add/del/test/create (lib/errcode.c texts). */
function elementError(error: SetError, command: string): string {
  switch (error) {
    case 'EXIST':
      return command === 'del'
        ? "Element cannot be deleted from the set: it's not added"
        : "Element cannot be added to the set: it's already added";
    case 'HASH_FULL':
      return 'Hash is full, cannot add more elements';
    case 'INVALID_CIDR':
      return 'The value of the CIDR parameter of the IP address is invalid';
    case 'BITMAP_RANGE':
      return 'Element is out of the range of the set';
    case 'TIMEOUT':
      return 'Timeout cannot be used: set was created without timeout support';
    case 'COUNTER':
      return 'Packet/byte counters cannot be used: set was created without counter support';
    case 'COMMENT':
      return 'Comment cannot be used: set was created without comment support';
    case 'LIST_FULL':
      return 'The set is full, more elements cannot be added';
    case 'NAME':
      return 'Set to be added/deleted/tested as element does not exist.';
    case 'REF_EXIST':
      return "The set to which you referred with 'before' or 'after' does not exist.";
    case 'LOOP':
      return 'Sets with list:set type cannot be added to the set.';
  }
}

function setsError(error: SetsError, command: string): string {
  switch (error) {
    case 'SET_EXISTS':
      return 'Set cannot be created: set with the same name already exists';
    case 'NO_SET':
      return 'The set with the given name does not exist';
    case 'REFERENCED':
      return command === 'rename'
        ? 'Set cannot be renamed: it is in use by another system'
        : 'Set cannot be destroyed: it is in use by a kernel component';
    case 'TYPE_MISMATCH':
      return 'The sets cannot be swapped: their type does not match';
    case 'RENAME_EXISTS':
      return 'Set cannot be renamed: a set with the new name already exists';
  }
}

/** A number argument as ipset's string_to_number reads it, within [min, max]. */
function number(text: string, min: number, max: number): number | Failure {
  if (!/^(0[xX][0-9a-fA-F]+|[0-9]+)$/.test(text))
    return refused(`Syntax error: '${text}' is invalid as number`);
  const value = text.startsWith('0x') || text.startsWith('0X') ? Number.parseInt(text, 16) : Number(text);
  if (value < min || value > max) return refused(`Syntax error: '${text}' is out of range ${min}-${max}`);
  return value;
}

function isFailure(value: unknown): value is Failure {
  return typeof value === 'object' && value !== null && 'message' in value;
}

class Session {
  readonly options: GlobalOptions = { exist: false, quiet: false, names: false, terse: false, save: false };

  constructor(
    private readonly sets: IpSets,
    private readonly now: () => number,
  ) {}

  get quiet(): boolean {
    return this.options.quiet;
  }

  /** One command line: global options anywhere, then the command and its words. */
  line(args: readonly string[], stdin: string, restoreLine: number | undefined): Outcome {
    const words: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const word = args[i]!;
      switch (word) {
        case '-!':
        case '-exist':
          this.options.exist = true;
          break;
        case '-q':
        case '-quiet':
          this.options.quiet = true;
          break;
        case '-n':
        case '-name':
          this.options.names = true;
          break;
        case '-t':
        case '-terse':
          this.options.terse = true;
          break;
        case '-o':
        case '-output': {
          const format = args[++i];
          if (format === undefined)
            return this.failed(usage(`Missing mandatory argument of option \`output'`));
          if (format === 'save') this.options.save = true;
          else if (format !== 'plain') return this.unsupported(`-o ${format}`);
          break;
        }
        case '-s':
        case '-sorted':
        case '-r':
        case '-resolve':
        case '-f':
        case '-file':
          return this.unsupported(word);
        default:
          words.push(word);
      }
    }
    const [first, ...rest] = words;
    if (first === undefined) return this.failed(usage('No command specified.'));
    const command = COMMANDS[first];
    if (command === undefined) return this.failed(usage(`No command specified: unknown argument ${first}`));
    if (restoreLine !== undefined && (command === 'restore' || command === 'help' || command === 'version'))
      return this.failed(usage(`No command specified: unknown argument ${first}`));
    return this.run(command, rest, stdin);
  }

  private failed(failure: Failure): Outcome {
    return { stdout: '', stderr: '', failure };
  }

  private unsupported(option: string): Outcome {
    return {
      stdout: '',
      stderr: '',
      failure: { message: unsupported('ipset', option).stderr.trimEnd(), usage: false, bare: true },
    };
  }

  private done(stdout = '', stderr = ''): Outcome {
    return { stdout, stderr, failure: undefined };
  }

  private run(command: string, args: readonly string[], stdin: string): Outcome {
    switch (command) {
      case 'create':
        return this.create(args);
      case 'add':
      case 'del':
      case 'test':
        return this.element(command, args);
      case 'destroy':
      case 'flush':
        return this.destroyOrFlush(command, args);
      case 'list':
      case 'save':
        return this.list(command, args);
      case 'rename':
      case 'swap':
        return this.renameOrSwap(command, args);
      case 'restore':
        return this.restore(stdin);
      case 'version':
        return this.done(`ipset ${VERSION}, protocol version: 7\n`);
      case 'help':
        return this.unsupported('help');
      default:
        throw new Error(`ipset: command ${command} not dispatched`);
    }
  }

  private missing(command: string, args: readonly string[], count: 1 | 2): Failure | undefined {
    if (args.length < 1) return usage(`Missing mandatory argument to command ${command}`);
    if (count === 2 && args.length < 2)
      return usage(`Missing second mandatory argument to command ${command}`);
    return undefined;
  }

  private create(args: readonly string[]): Outcome {
    const missing = this.missing('create', args, 2);
    if (missing !== undefined) return this.failed(missing);
    const [name, typeName, ...rest] = args as [string, string, ...string[]];
    if (name.length > MAX_SET_NAME)
      return this.failed(
        refused(`Syntax error: setname '${name}' is longer than ${MAX_SET_NAME} characters`),
      );
    if (!(SET_TYPES as readonly string[]).includes(typeName)) {
      if (OTHER_TYPES.includes(typeName)) return this.unsupported(`type ${typeName}`);
      return this.failed(refused(`Syntax error: typename '${typeName}' is unknown`));
    }
    const type = typeName as SetTypeName;
    const parsed = this.createOptions(type, rest);
    if (isFailure(parsed)) return this.failed(parsed);
    if ('unsupported' in parsed) return this.unsupported(parsed.unsupported);
    const result = this.sets.create(name, parsed, this.options.exist);
    return result.ok ? this.done() : this.failed(refused(setsError(result.error, 'create')));
  }

  /** The create options a type takes (ipset's type definitions' create_args). */
  private createOptions(
    type: SetTypeName,
    words: readonly string[],
  ): CreateOptions | Failure | { unsupported: string } {
    const hash = type.startsWith('hash:');
    let timeout: number | undefined;
    let counters = false;
    let comment = false;
    const options: {
      hashsize?: number;
      maxelem?: number;
      bucketsize?: number;
      initval?: number;
      netmask?: number;
      range?: [number, number];
      size?: number;
    } = {};
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!;
      const value = (): string | Failure =>
        words[i + 1] === undefined ? usage(`Missing mandatory argument of option \`${word}'`) : words[++i]!;
      const numeric = (min: number, max: number): number | Failure => {
        const text = value();
        return isFailure(text) ? text : number(text, min, max);
      };
      let parsed: number | Failure | undefined;
      switch (word) {
        case 'timeout':
          parsed = numeric(0, MAX_TIMEOUT);
          if (!isFailure(parsed)) timeout = parsed;
          break;
        case 'counters':
          counters = true;
          break;
        case 'comment':
          comment = true;
          break;
        case 'family': {
          const family = value();
          if (isFailure(family)) return family;
          if (family === 'inet6') return { unsupported: 'family inet6' };
          if (family !== 'inet') return refused(`Syntax error: unknown family '${family}'`);
          break;
        }
        case 'hashsize':
        case 'maxelem':
        case 'bucketsize':
        case 'initval':
        case 'netmask':
          if (!hash || (word === 'netmask' && type !== 'hash:ip'))
            return usage(`Unknown argument: \`${word}'`);
          if (word === 'netmask') {
            const text = value();
            if (isFailure(text)) return text;
            parsed = number(text, 1, 32);
            if (isFailure(parsed))
              return refused(
                `${parsed.message}\nSyntax error: netmask is out of the inclusive range of 1-32`,
              );
          } else parsed = numeric(0, 0xffff_ffff);
          if (!isFailure(parsed)) options[word] = parsed;
          break;
        case 'range': {
          if (type !== 'bitmap:port') return usage(`Unknown argument: \`${word}'`);
          const text = value();
          if (isFailure(text)) return text;
          const ports = parseElements('bitmap:port', text, { netmask: 32, test: false });
          if (!ports.ok) return refused(ports.error);
          const numbers = ports.elements.map((element) =>
            element.kind === 'bitmap:port' ? element.port : 0,
          );
          options.range = [Math.min(...numbers), Math.max(...numbers)];
          break;
        }
        case 'size':
          if (type !== 'list:set') return usage(`Unknown argument: \`${word}'`);
          parsed = numeric(0, 0xffff_ffff);
          if (!isFailure(parsed)) options.size = Math.max(parsed, 4);
          break;
        case 'forceadd':
        case 'skbinfo':
        case 'markmask':
        case 'bitmask':
          return { unsupported: word };
        default:
          return usage(`Unknown argument: \`${word}'`);
      }
      if (isFailure(parsed)) return parsed;
    }
    if (type === 'bitmap:port' && options.range === undefined)
      return usage("Mandatory option `range' is missing");
    const extensions: SetExtensions = { timeout, counters, comment };
    return { type, extensions, ...options };
  }

  private element(command: 'add' | 'del' | 'test', args: readonly string[]): Outcome {
    const missing = this.missing(command, args, 2);
    if (missing !== undefined) return this.failed(missing);
    const [name, text, ...rest] = args as [string, string, ...string[]];
    const named = this.sets.get(name);
    if (named === undefined) return this.failed(refused(setsError('NO_SET', command)));
    const set = named.set;
    const parsed = this.elementOptions(command, set.type, rest);
    if (isFailure(parsed)) return this.failed(parsed);
    const { ext, nomatch, position } = parsed;
    if (ext.timeout !== undefined && set.extensions.timeout === undefined)
      return this.failed(refused(elementError('TIMEOUT', command)));
    if ((ext.packets !== undefined || ext.bytes !== undefined) && !set.extensions.counters)
      return this.failed(refused(elementError('COUNTER', command)));
    if (ext.comment !== undefined && !set.extensions.comment)
      return this.failed(refused(elementError('COMMENT', command)));
    const netmask = 'netmask' in set ? set.netmask : 32;
    const elements = parseElements(set.type, text, { netmask, test: command === 'test' });
    if (!elements.ok) return this.failed(refused(elements.error));
    const now = this.now();
    if (command === 'test') {
      const found = this.test(named, elements.elements[0]!, position, now);
      if (!found)
        return this.failed({
          message: `${this.testText(text, position)} is NOT in set ${name}.`,
          usage: false,
          bare: true,
        });
      return this.done(
        '',
        this.options.quiet ? '' : `Warning: ${this.testText(text, position)} is in set ${name}.\n`,
      );
    }
    for (const element of elements.elements) {
      const error = this.change(named, command, element, ext, { nomatch, position }, now);
      if (error === undefined || (error === 'EXIST' && this.options.exist)) continue;
      return this.failed(refused(elementError(error, command)));
    }
    return this.done();
  }

  /** ipset test's echo of the element (with the list:set position word it printed, `after` for both). */
  private testText(text: string, position: ListPosition | undefined): string {
    return position === undefined ? text : `${text} after ${position.ref}`;
  }

  private test(
    named: NamedSet,
    element: SetElement,
    position: ListPosition | undefined,
    now: number,
  ): boolean {
    const set = named.set;
    switch (set.type) {
      case 'bitmap:port':
        return element.kind === 'bitmap:port' && set.test(element.port, now) !== undefined;
      case 'list:set':
        return element.kind === 'list:set' && set.test(element.name, position, now);
      default:
        if (element.kind === 'bitmap:port' || element.kind === 'list:set') return false;
        return set.test(element, now) !== undefined;
    }
  }

  private change(
    named: NamedSet,
    command: 'add' | 'del',
    element: SetElement,
    ext: AddExtensions,
    flags: { nomatch: boolean; position: ListPosition | undefined },
    now: number,
  ): SetError | undefined {
    const set = named.set;
    switch (set.type) {
      case 'bitmap:port': {
        if (element.kind !== 'bitmap:port') return 'BITMAP_RANGE';
        const result =
          command === 'add'
            ? set.add(element.port, ext, this.options.exist, now)
            : set.del(element.port, now);
        return result.ok ? undefined : result.error;
      }
      case 'list:set': {
        if (element.kind !== 'list:set') return 'NAME';
        const member = this.sets.get(element.name);
        if (member === undefined) return 'NAME';
        if (member.set.type === 'list:set') return 'LOOP';
        if (flags.position !== undefined && this.sets.get(flags.position.ref) === undefined)
          return 'REF_EXIST';
        const result =
          command === 'add'
            ? set.add(element.name, flags.position, ext, this.options.exist, now)
            : set.del(element.name, flags.position, now);
        return result.ok ? undefined : result.error;
      }
      default: {
        if (element.kind === 'bitmap:port' || element.kind === 'list:set') return 'EXIST';
        if ('cidr' in element && element.cidr === 0) return 'INVALID_CIDR';
        const result =
          command === 'add'
            ? set.add(element, ext, { exist: this.options.exist, nomatch: flags.nomatch }, now)
            : set.del(element, now);
        return result.ok ? undefined : result.error;
      }
    }
  }

  /** The words after the element: timeout, packets, bytes, comment, nomatch, before/after for list:set. */
  private elementOptions(
    command: string,
    type: SetTypeName,
    words: readonly string[],
  ): { ext: AddExtensions; nomatch: boolean; position: ListPosition | undefined } | Failure {
    const ext: { timeout?: number; packets?: number; bytes?: number; comment?: string } = {};
    let nomatch = false;
    let position: ListPosition | undefined;
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!;
      const next = words[i + 1];
      if (word === 'nomatch' && type !== 'hash:ip' && type !== 'hash:ip,port' && type.startsWith('hash:')) {
        nomatch = command === 'add';
        continue;
      }
      if (next === undefined) {
        if (['timeout', 'packets', 'bytes', 'comment', 'before', 'after'].includes(word))
          return usage(`Missing mandatory argument of option \`${word}'`);
        return usage(`Unknown argument: \`${word}'`);
      }
      i++;
      switch (word) {
        case 'timeout': {
          const value = number(next, 0, MAX_TIMEOUT);
          if (isFailure(value)) return value;
          ext.timeout = value;
          break;
        }
        case 'packets':
        case 'bytes': {
          const value = number(next, 0, Number.MAX_SAFE_INTEGER);
          if (isFailure(value)) return value;
          ext[word] = value;
          break;
        }
        case 'comment':
          if (next.length > MAX_COMMENT_SIZE)
            return refused(
              `Syntax error: Comment is longer than the maximum allowed ${MAX_COMMENT_SIZE} characters`,
            );
          ext.comment = next;
          break;
        case 'before':
        case 'after':
          if (type !== 'list:set') return usage(`Unknown argument: \`${word}'`);
          position = { where: word, ref: next };
          break;
        default:
          return usage(`Unknown argument: \`${word}'`);
      }
    }
    return { ext, nomatch, position };
  }

  private destroyOrFlush(command: 'destroy' | 'flush', args: readonly string[]): Outcome {
    const name = args[0];
    if (command === 'flush') {
      const targets = name === undefined ? this.sets.all() : [this.sets.get(name)];
      if (targets[0] === undefined && name !== undefined)
        return this.failed(refused(setsError('NO_SET', command)));
      for (const named of targets) named?.set.flush();
      return this.done();
    }
    const result = this.sets.destroy(name);
    return result.ok ? this.done() : this.failed(refused(setsError(result.error, command)));
  }

  private list(command: 'list' | 'save', args: readonly string[]): Outcome {
    const name = args[0];
    // A dump of every set gives list:set sets last, so that a restore finds their members (ip_set_dump_do).
    const all = this.sets.all();
    let sets = [
      ...all.filter((named) => named.set.type !== 'list:set'),
      ...all.filter((named) => named.set.type === 'list:set'),
    ];
    if (name !== undefined) {
      const named = this.sets.get(name);
      if (named === undefined) return this.failed(refused(setsError('NO_SET', command)));
      sets = [named];
    }
    if (args.length > 1) return this.failed(usage(`Unknown argument ${args[1]}`));
    const now = this.now();
    if (command === 'save' || this.options.save) return this.done(saveSets(sets, now));
    if (this.options.names) return this.done(sets.map((named) => `${named.name}\n`).join(''));
    return this.done(
      listSets(sets, now, { terse: this.options.terse, references: (n) => this.sets.references(n) }),
    );
  }

  private renameOrSwap(command: 'rename' | 'swap', args: readonly string[]): Outcome {
    const missing = this.missing(command, args, 2);
    if (missing !== undefined) return this.failed(missing);
    const [from, to] = args as [string, string];
    const result = command === 'rename' ? this.sets.rename(from, to) : this.sets.swap(from, to);
    return result.ok ? this.done() : this.failed(refused(setsError(result.error, command)));
  }

  /**
   * ipset restore: one command a line (comments, blank lines and COMMIT skipped), each applied as it is read; the
   * first error stops the restore, naming its line.
   */
  private restore(stdin: string): Outcome {
    let stdout = '';
    let stderr = '';
    const lines = stdin.split('\n');
    for (let n = 0; n < lines.length; n++) {
      const text = lines[n]!.trim();
      if (text === '' || text.startsWith('#') || text === 'COMMIT') continue;
      const words = splitRestoreLine(text);
      const outcome = this.line(words, '', n + 1);
      stdout += outcome.stdout;
      stderr += outcome.stderr;
      if (outcome.failure !== undefined) {
        const failure = outcome.failure.usage
          ? outcome.failure
          : refused(`Error in line ${n + 1}: ${outcome.failure.message}`);
        return { stdout, stderr, failure };
      }
    }
    return { stdout, stderr, failure: undefined };
  }
}

/** A restore line split on blanks, double-quoted words (comments) kept whole. */
function splitRestoreLine(text: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|(\S+)/g;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text))
    words.push(match[1] ?? match[2]!);
  return words;
}
