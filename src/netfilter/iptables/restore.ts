// iptables-restore (xtables-restore.c): `*table`, `:CHAIN POLICY [p:b]`, rule commands, `COMMIT`, comments;
// each table is one atomic batch committed at its COMMIT, a failure stops the input with iptables 1.8.9's
// messages and exit codes and leaves the failing table as it was. Options: -c, -n, -t, -T, -v, -w, -W.

import type { RulesetError, RulesetStore } from '../ruleset.ts';
import { type AddedRule, applyCommand, type CommandOutput, checkBatch, listCommand } from './command.ts';
import { exitCodeOf, formatRestoreError, type IptError, nftError, param, VERSION } from './errors.ts';
import { restoreLineCache } from './line-cache.ts';
import { parseDecimal } from './names.ts';
import { checkChainName, parseCommand } from './parser.ts';
import { builtinChain, ensureBuiltin, ensureTable, TABLES } from './tables.ts';
import { MAX_WORD_LENGTH, MAX_WORDS, tokenizeRestoreLine } from './tokenize.ts';

export interface RestoreOptions {
  readonly counters: boolean;
  readonly noflush: boolean;
  readonly test: boolean;
  readonly verbose: boolean;
  /** -T: restore only this table. */
  readonly onlyTable: string | undefined;
}

const ABORT: RulesetError = { errno: 'EINVAL', what: 'iptables-restore failed' };

/** `[packets:bytes]` at the start of a line (tokenize_rule_counters), or an error. */
function splitCounters(
  line: string,
  lineNo: number,
): { packets: number; bytes: number; rest: string } | IptError | undefined {
  if (!line.startsWith('[')) return undefined;
  const close = line.indexOf(']');
  if (close < 0) return param(`Bad line ${lineNo}: need ]`);
  const inner = line.slice(1, close);
  const colon = inner.indexOf(':');
  const packets = parseDecimal(inner.slice(0, colon), Number.MAX_SAFE_INTEGER);
  const bytes = parseDecimal(inner.slice(colon + 1), Number.MAX_SAFE_INTEGER);
  if (colon < 0 || packets === undefined || bytes === undefined) return param(`Bad line ${lineNo}: need ]`);
  return { packets, bytes, rest: line.slice(close + 1) };
}

/** The -t check add_param_to_argv makes on every word. */
function tableOption(word: string): boolean {
  if (word.startsWith('-') && !word.startsWith('--') && word.includes('t')) return true;
  return word.startsWith('--t') && '--table'.startsWith(word);
}

interface Block {
  readonly table: string;
  readonly line: number;
  readonly steps: { readonly line: number; readonly run: Step }[];
}

type Step = (
  draft: Parameters<Parameters<RulesetStore['transaction']>[0]>[0],
  added: AddedRule[],
) => IptError | undefined;

/** Runs `input` through iptables-restore against `store`. */
export function restoreRuleset(store: RulesetStore, input: string, options: RestoreOptions): CommandOutput {
  let stdout = '';
  const lines = input.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  let block: Block | undefined;
  const fail = (error: IptError, line: number): CommandOutput => ({
    stdout,
    stderr: formatRestoreError(error, line),
    exitCode: exitCodeOf(error),
  });

  for (let index = 0; index < lines.length; index++) {
    const lineNo = index + 1;
    const raw = lines[index]!;
    if (raw === '' || raw.startsWith('#')) continue;
    if (
      block !== undefined &&
      raw.startsWith('COMMIT') &&
      (raw.length === 6 || raw[6] === '\n' || raw[6] === '\r')
    ) {
      const current = block;
      block = undefined;
      if (options.test) continue;
      if (options.onlyTable !== undefined && options.onlyTable !== current.table) continue;
      let failed: { error: IptError; line: number } | undefined;
      store.transaction(
        (draft) => {
          if (!options.noflush) draft.deleteTable('ip', current.table);
          const added: AddedRule[] = [];
          for (const step of current.steps) {
            const error = step.run(draft, added);
            if (error !== undefined) {
              // Jump targets are looked up when the batch is built, at COMMIT (so the error names that line).
              failed = { error, line: error.kind === 'param' ? lineNo : step.line };
              return ABORT;
            }
          }
          failed = checkBatch(draft, current.table, added);
          return failed === undefined ? undefined : ABORT;
        },
        { process: 'iptables-restor' },
      );
      if (failed !== undefined) return fail(failed.error, failed.line);
      continue;
    }
    if (raw.startsWith('*') && block === undefined) {
      const name = raw.slice(1).split(/[ \t\n]/)[0] ?? '';
      if (name === '')
        return { stdout, stderr: `iptables-restore: line ${lineNo} table name invalid\n`, exitCode: 1 };
      if (!TABLES.has(name))
        return fail(param(`iptables-restore: line ${lineNo} table name '${name}' invalid`), lineNo);
      block = { table: name, line: lineNo, steps: [] };
      continue;
    }
    if (raw.startsWith(':') && block !== undefined) {
      const words = raw
        .slice(1)
        .split(/[ \t]+/)
        .filter((word) => word !== '');
      const chain = words[0] === undefined ? undefined : restoreLineCache.chainName(words[0]);
      if (chain === undefined)
        return fail(param(`iptables-restore: line ${lineNo} chain name invalid`), lineNo);
      const nameError = checkChainName(chain);
      if (nameError !== undefined && builtinChain(block.table, chain) === undefined)
        return fail(nameError, lineNo);
      const policy = words[1];
      const tableName = block.table;
      let counters: { packets: number; bytes: number } | undefined;
      if (options.counters && words[2] !== undefined) {
        const parsed = splitCounters(words[2], lineNo);
        if (parsed !== undefined && 'kind' in parsed) return fail(parsed, lineNo);
        if (parsed !== undefined) counters = { packets: parsed.packets, bytes: parsed.bytes };
      }
      if (builtinChain(tableName, chain) !== undefined) {
        if (policy === undefined)
          return fail(param(`iptables-restore: line ${lineNo} policy invalid`), lineNo);
        block.steps.push({
          line: lineNo,
          run: (draft) => {
            // xtables-restore.c: `-` declares the built-in chain without setting its policy or counters (kube-proxy
            // writes `:INPUT - [0:0]`); the chain keeps the policy it has, ACCEPT once the table was flushed.
            if (policy !== 'ACCEPT' && policy !== 'DROP' && policy !== '-')
              return nftError('Bad policy name.');
            const created = ensureBuiltin(draft, tableName, chain);
            if (created === undefined || 'errno' in created) return nftError('Bad built-in chain name.');
            if (policy === '-') {
              created.policyCounters = true;
              return undefined;
            }
            created.base = { ...created.base!, policy: policy === 'DROP' ? 'drop' : 'accept' };
            created.policyCounters = true;
            if (counters !== undefined) {
              created.policyPackets = counters.packets;
              created.policyBytes = counters.bytes;
            }
            return undefined;
          },
        });
      } else {
        block.steps.push({
          line: lineNo,
          run: (draft) => {
            const table = ensureTable(draft, tableName);
            if ('errno' in table) return nftError('Chain already exists.');
            const existing = table.chains.get(chain);
            if (existing !== undefined) {
              draft.flushChain(existing);
              return undefined;
            }
            const created = draft.addChain(table, chain, undefined);
            return 'errno' in created ? nftError('Chain already exists.') : undefined;
          },
        });
      }
      continue;
    }
    if (block === undefined)
      return { stdout, stderr: `iptables-restore: line ${lineNo} failed\n`, exitCode: 1 };

    // A rule command.
    let text = raw;
    let counters: { packets: number; bytes: number } | undefined;
    if (options.counters) {
      const parsed = splitCounters(text, lineNo);
      if (parsed !== undefined && 'kind' in parsed) return fail(parsed, lineNo);
      if (parsed !== undefined) {
        counters = { packets: parsed.packets, bytes: parsed.bytes };
        text = parsed.rest;
      }
    }
    // After a `[packets:bytes]` prefix the line starts with a blank the tokenizer skips: the same rule, the same key.
    const cacheKey = restoreLineCache.key(block.table, text.replace(/^[ \t]+/, ''));
    let cmd = restoreLineCache.get(cacheKey);
    if (cmd === undefined) {
      // Tokenized from the key's copy of the line, so the parsed words do not point into the whole input.
      // fgets keeps the line's newline: a quote left open takes it into its word (`--comment "ca` is "ca\n").
      const newline = index < lines.length - 1 || input.endsWith('\n') ? '\n' : '';
      const words = tokenizeRestoreLine(`${cacheKey.slice(block.table.length + 1)}${newline}`);
      if (words.length + 1 >= MAX_WORDS) return fail(param('too many arguments'), lineNo);
      if (words.some((word) => word.length > MAX_WORD_LENGTH))
        return fail(param('Parameter too long!'), lineNo);
      if (words.some(tableOption))
        return fail(param('The -t option cannot be used in iptables-restore.\n'), lineNo);
      const parsed = parseCommand(
        words,
        store.setExists === undefined
          ? { restoreTable: block.table }
          : { restoreTable: block.table, setExists: store.setExists },
      );
      if ('kind' in parsed) return fail(parsed, lineNo);
      cmd = parsed;
      restoreLineCache.set(cacheKey, cmd);
    }
    if (cmd.command === 'list' || cmd.command === 'list-rules') {
      const listed = listCommand(store, cmd);
      stdout += listed.stdout;
      if (listed.exitCode !== 0) return { stdout, stderr: listed.stderr, exitCode: listed.exitCode };
      continue;
    }
    if (cmd.command === 'help' || cmd.command === 'version') continue;
    const parsedCommand = cmd;
    block.steps.push({
      line: lineNo,
      // The counters go beside the interned command, so the rule still shares its compiled form.
      run: (draft, added) => applyCommand(draft, parsedCommand, lineNo, added, counters),
    });
  }
  if (block !== undefined)
    return { stdout, stderr: `iptables-restore: COMMIT expected at line ${lines.length + 1}\n`, exitCode: 1 };
  return { stdout, stderr: '', exitCode: 0 };
}

/** Parses iptables-restore's own options; returns the options and an optional file name. */
export function parseRestoreArgs(
  argv: readonly string[],
): { options: RestoreOptions; file: string | undefined } | CommandOutput {
  let counters = false;
  let noflush = false;
  let test = false;
  let verbose = false;
  let onlyTable: string | undefined;
  let file: string | undefined;
  const usage = (message: string): CommandOutput => ({
    stdout: '',
    stderr: `iptables-restore: ${message}\nTry \`iptables-restore -h' for more information.\n`,
    exitCode: 1,
  });
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    switch (word) {
      case '-c':
      case '--counters':
        counters = true;
        break;
      case '-n':
      case '--noflush':
        noflush = true;
        break;
      case '-t':
      case '--test':
        test = true;
        break;
      case '-v':
      case '--verbose':
        verbose = true;
        break;
      case '-T':
      case '--table': {
        const value = argv[++i];
        if (value === undefined) return usage(`option requires an argument -- 'T'`);
        onlyTable = value;
        break;
      }
      case '-w':
      case '--wait':
      case '-W':
      case '--wait-interval':
        if (argv[i + 1] !== undefined && /^[0-9]+$/.test(argv[i + 1]!)) i++;
        break;
      case '-V':
      case '--version':
        return { stdout: `iptables-restore ${VERSION}\n`, stderr: '', exitCode: 0 };
      default:
        if (word.startsWith('--')) return usage(`unrecognized option '${word}'`);
        if (word.startsWith('-') && word.length > 1) return usage(`invalid option -- '${word.slice(1, 2)}'`);
        file = word;
    }
  }
  return { options: { counters, noflush, test, verbose, onlyTable }, file };
}
