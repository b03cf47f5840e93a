// Carries out parsed iptables commands on a ruleset draft as iptables-nft 1.8.9 does (nft.c: nft_rule_append,
// nft_chain_user_add, nft_chain_set...), then checks what the kernel checks at commit: targets and matches
// only where their tables and hooks allow, no jump to a base chain, no loop. Output text for -L and -S.

import type { Chain, Rule, Table } from '../ir.ts';
import { withOwnState } from '../rule-state.ts';
import { makeRule, type RulesetDraft, type RulesetError, type RulesetStore } from '../ruleset.ts';
import {
  BAD_RULE,
  type Errno,
  exitCodeOf,
  formatIptablesError,
  type IptError,
  type KernelOp,
  kernelError,
  NO_CHAIN,
  nftError,
  param,
  VERSION,
} from './errors.ts';
import type { Usage } from './extension.ts';
import { restoreLineCache } from './line-cache.ts';
import { chainOrder, type ListFormat, listChains, ruleLine } from './listing.ts';
import { type ParsedCommand, parseCommand, type RuleSpec } from './parser.ts';
import { type CompiledRule, compileRule, ruleSpecOf } from './rule.ts';
import { compatible, listRules } from './save.ts';
import { builtinChain, chainHooks, ensureBuiltin, ensureTable, TABLES } from './tables.ts';

export interface CommandOutput {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/** A rule a batch added, for the kernel's checks and for naming the failing line. */
export interface AddedRule {
  readonly rule: Rule;
  readonly chain: string;
  readonly op: KernelOp;
  readonly line: number;
  readonly spec: RuleSpec;
}

function sameRule(rule: Rule, args: readonly string[]): boolean {
  const saved = rule.iptables?.args;
  return saved !== undefined && saved.length === args.length && saved.every((word, i) => word === args[i]);
}

function rulesetFailure(error: RulesetError, op: KernelOp, what: string): IptError {
  switch (error.errno) {
    case 'ENOENT':
      return NO_CHAIN;
    case 'EEXIST':
      return nftError('Chain already exists.');
    default:
      return kernelError(op, error.errno, what);
  }
}

/** Renames a user chain in place, keeping its position and handle, and the jumps to it. */
function renameChain(table: Table, from: Chain, to: string): void {
  const renamed: Chain = { ...from, name: to };
  const entries = [...table.chains.entries()].map(([name, chain]): [string, Chain] =>
    name === from.name ? [to, renamed] : [name, chain],
  );
  table.chains.clear();
  for (const [name, chain] of entries) table.chains.set(name, chain);
  for (const chain of table.chains.values()) {
    chain.rules = chain.rules.map((rule) => {
      let changed = false;
      const exprs = rule.exprs.map((expr) => {
        if (
          expr.kind === 'verdict' &&
          (expr.verdict.kind === 'jump' || expr.verdict.kind === 'goto') &&
          expr.verdict.chain === from.name
        ) {
          changed = true;
          return { kind: 'verdict' as const, verdict: { kind: expr.verdict.kind, chain: to } };
        }
        return expr;
      });
      if (!changed) return rule;
      if (rule.iptables === undefined)
        return makeRule(rule.handle, exprs, rule.comment, undefined, rule.packets, rule.bytes);
      const args = rule.iptables.args.map((word, i, all) =>
        word === from.name && (all[i - 1] === '-j' || all[i - 1] === '-g') ? to : word,
      );
      return makeRule(rule.handle, exprs, rule.comment, { ...rule.iptables, args }, rule.packets, rule.bytes);
    });
  }
}

/**
 * A rule spec's compiled form, once per spec: the iptables-restore line cache hands every namespace that loads the
 * same line the same spec, so they all share the same immutable expressions and saved form.
 */
const compiledBySpec = new WeakMap<RuleSpec, { readonly table: string; readonly compiled: CompiledRule }>();

function compiledRule(spec: RuleSpec, table: string): CompiledRule {
  const known = compiledBySpec.get(spec);
  if (known !== undefined && known.table === table) return known.compiled;
  const compiled = compileRule(spec, table);
  compiledBySpec.set(spec, { table, compiled });
  return compiled;
}

/**
 * Applies one rule-changing command to `draft`. Listing commands are not handled here. `added` collects
 * the rules added, for checkBatch. `restoredCounters`: iptables-restore's `[packets:bytes]` prefix of the line.
 */
export function applyCommand(
  draft: RulesetDraft,
  cmd: ParsedCommand,
  line: number,
  added: AddedRule[],
  restoredCounters?: { readonly packets: number; readonly bytes: number },
): IptError | undefined {
  const tableName = cmd.table;
  if (!TABLES.has(tableName)) return { kind: 'table', table: tableName };
  const table = draft.table('ip', tableName);
  const chainName = cmd.chain;
  switch (cmd.command) {
    case 'append':
    case 'insert':
    case 'replace':
    case 'delete':
    case 'check': {
      const spec = cmd.rule!;
      const name = chainName!;
      const builtin = builtinChain(tableName, name) !== undefined;
      const existing = table?.chains.get(name);
      if (!builtin && existing === undefined) return NO_CHAIN;
      const target = spec.target;
      if (
        (target?.kind === 'jump' || target?.kind === 'goto') &&
        cmd.command !== 'delete' &&
        cmd.command !== 'check'
      ) {
        if (
          builtinChain(tableName, target.chain) === undefined &&
          table?.chains.get(target.chain) === undefined
        )
          return param(`Chain '${target.chain}' does not exist`);
      }
      const compiled = compiledRule(spec, tableName);
      const args = compiled.iptables.args;
      if (cmd.command === 'check' || cmd.command === 'delete') {
        const rule = existing?.rules.find((candidate) => sameRule(candidate, args));
        if (rule === undefined || existing === undefined) return BAD_RULE;
        if (cmd.command === 'delete') draft.deleteRule(existing, rule.handle);
        return undefined;
      }
      let position: number | undefined;
      if (cmd.command === 'insert') {
        const num = cmd.ruleNum ?? 1;
        if (num > (existing?.rules.length ?? 0) + 1) return nftError('Index of insertion too big.');
        position = num - 1;
      }
      if (cmd.command === 'replace') {
        const num = cmd.ruleNum ?? 1;
        const old = existing?.rules[num - 1];
        if (existing === undefined || old === undefined) return nftError('Index of replacement too big.');
        draft.deleteRule(existing, old.handle);
        position = num - 1;
      }
      const chain = existing ?? ensureBuiltin(draft, tableName, name);
      if (chain === undefined) return NO_CHAIN;
      const op: KernelOp =
        cmd.command === 'append' ? 'RULE_APPEND' : cmd.command === 'insert' ? 'RULE_INSERT' : 'RULE_REPLACE';
      if ('errno' in chain) return rulesetFailure(chain, op, `rule in chain ${name}`);
      const tableNow = draft.table('ip', tableName)!;
      const rule = draft.addRule(
        tableNow,
        chain,
        {
          exprs: withOwnState(compiled.exprs),
          comment: compiled.comment,
          iptables: compiled.iptables,
          packets: restoredCounters?.packets ?? spec.counters?.packets ?? 0,
          bytes: restoredCounters?.bytes ?? spec.counters?.bytes ?? 0,
        },
        position,
      );
      if ('errno' in rule) {
        if (rule.errno === 'ENOENT')
          return param(
            `Chain '${target?.kind === 'jump' || target?.kind === 'goto' ? target.chain : name}' does not exist`,
          );
        return kernelError(op, rule.errno === 'EINVAL' ? 'EOPNOTSUPP' : rule.errno, `rule in chain ${name}`);
      }
      added.push({ rule, chain: name, op, line, spec });
      return undefined;
    }
    case 'delete-num': {
      const chain = table?.chains.get(chainName!);
      if (chain === undefined && builtinChain(tableName, chainName!) === undefined) return NO_CHAIN;
      const rule = chain?.rules[(cmd.ruleNum ?? 1) - 1];
      if (chain === undefined || rule === undefined) return nftError('Index of deletion too big.');
      draft.deleteRule(chain, rule.handle);
      return undefined;
    }
    case 'flush': {
      if (chainName !== undefined) {
        const chain = table?.chains.get(chainName);
        if (chain === undefined)
          return builtinChain(tableName, chainName) === undefined ? NO_CHAIN : undefined;
        draft.flushChain(chain);
        return undefined;
      }
      for (const chain of table?.chains.values() ?? []) draft.flushChain(chain);
      return undefined;
    }
    case 'zero': {
      const zeroChain = (chain: Chain): void => {
        const rules =
          cmd.ruleNum === undefined ? chain.rules : chain.rules.slice(cmd.ruleNum - 1, cmd.ruleNum);
        for (const rule of rules) {
          rule.packets = 0;
          rule.bytes = 0;
        }
        if (cmd.ruleNum === undefined) {
          chain.policyPackets = 0;
          chain.policyBytes = 0;
          // nft_chain_zero_counters sends the chain's counters, so a base chain counts from now on.
          if (chain.base !== undefined) chain.policyCounters = true;
        }
      };
      if (chainName !== undefined) {
        const chain = table?.chains.get(chainName);
        if (chain === undefined)
          return builtinChain(tableName, chainName) === undefined ? NO_CHAIN : undefined;
        zeroChain(chain);
        return undefined;
      }
      for (const chain of table?.chains.values() ?? []) zeroChain(chain);
      return undefined;
    }
    case 'new-chain': {
      const name = chainName!;
      if (builtinChain(tableName, name) !== undefined || table?.chains.has(name))
        return nftError('Chain already exists.');
      const created = ensureTable(draft, tableName);
      if ('errno' in created) return rulesetFailure(created, 'CHAIN_USER_ADD', `chain ${name}`);
      const chain = draft.addChain(created, name, undefined, { exclusive: true });
      if ('errno' in chain) return rulesetFailure(chain, 'CHAIN_USER_ADD', `chain ${name}`);
      return undefined;
    }
    case 'delete-chain': {
      if (table === undefined) return chainName === undefined ? undefined : NO_CHAIN;
      const names =
        chainName !== undefined
          ? [chainName]
          : chainOrder(tableName, table)
              .filter((e) => !e.builtin)
              .map((e) => e.name);
      for (const name of names) {
        const chain = table.chains.get(name);
        if (chain === undefined) return NO_CHAIN;
        if (chain.base !== undefined) return kernelError('CHAIN_DEL', 'EBUSY', `chain ${name}`);
        const error = draft.deleteChain(table, name);
        if (error !== undefined)
          return kernelError('CHAIN_DEL', error.errno === 'ENOENT' ? 'ENOENT' : 'EBUSY', `chain ${name}`);
      }
      return undefined;
    }
    case 'rename-chain': {
      const from = table?.chains.get(chainName!);
      if (table === undefined || from === undefined || from.base !== undefined) return NO_CHAIN;
      const to = cmd.newName!;
      if (table.chains.has(to) || builtinChain(tableName, to) !== undefined) return nftError('File exists.');
      renameChain(table, from, to);
      return undefined;
    }
    case 'policy': {
      const name = chainName!;
      if (builtinChain(tableName, name) === undefined) return nftError('Bad built-in chain name.');
      const policy = cmd.policy;
      if (policy !== 'ACCEPT' && policy !== 'DROP')
        return nftError("Bad policy name. Run `dmesg' for more information.");
      const chain = ensureBuiltin(draft, tableName, name);
      if (chain === undefined) return nftError('Bad built-in chain name.');
      if ('errno' in chain) return rulesetFailure(chain, 'CHAIN_USER_ADD', `chain ${name}`);
      chain.base = { ...chain.base!, policy: policy === 'DROP' ? 'drop' : 'accept' };
      // nft_chain_set sends the policy with counters: the chain counts its policy from now on.
      chain.policyCounters = true;
      const counters = cmd.rule?.counters;
      if (counters !== undefined) {
        chain.policyPackets = counters.packets;
        chain.policyBytes = counters.bytes;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function fits(usage: Usage | undefined, tableName: string, hooks: ReadonlySet<string>): boolean {
  if (usage === undefined) return true;
  if (usage.never) return false;
  if (usage.tables !== undefined && !usage.tables.includes(tableName)) return false;
  if (usage.hooks !== undefined)
    for (const hook of hooks) if (!usage.hooks.includes(hook as never)) return false;
  return true;
}

/** The errno the kernel refuses the rule with (a match's or target's checkentry), undefined when it fits. */
function ruleRefusal(spec: RuleSpec, tableName: string, hooks: ReadonlySet<string>): Errno | undefined {
  const ctx = { proto: spec.proto, protoInvert: spec.protoInvert, table: tableName };
  const usages = spec.matches.map((match) => match.usage(ctx));
  if (spec.target?.kind === 'xt') usages.push(spec.target.target.usage(ctx));
  for (const usage of usages) if (!fits(usage, tableName, hooks)) return usage?.errno ?? 'EINVAL';
  return undefined;
}

function ruleFits(spec: RuleSpec, tableName: string, hooks: ReadonlySet<string>): boolean {
  return ruleRefusal(spec, tableName, hooks) === undefined;
}

/**
 * The kernel's checks at commit (nft_chain_validate with xt_check_target/xt_check_match): every rule fits
 * the hooks that reach its chain; jumps go to regular chains; no loops. The error names the first added rule
 * to blame, and its line for iptables-restore.
 */
export function checkBatch(
  draft: RulesetDraft,
  tableName: string,
  added: readonly AddedRule[],
): { error: IptError; line: number } | undefined {
  const table = draft.table('ip', tableName);
  if (table === undefined || added.length === 0) return undefined;
  const lastJump = [...added]
    .reverse()
    .find((entry) => entry.spec.target?.kind === 'jump' || entry.spec.target?.kind === 'goto');
  for (const entry of added) {
    const target = entry.spec.target;
    if (
      (target?.kind === 'jump' || target?.kind === 'goto') &&
      table.chains.get(target.chain)?.base !== undefined
    )
      return { error: kernelError(entry.op, 'EOPNOTSUPP', `rule in chain ${entry.chain}`), line: entry.line };
  }
  const hooks = chainHooks(table);
  const addedRules = new Map(added.map((entry) => [entry.rule, entry]));
  let blame: AddedRule | undefined;
  let errno: Errno = 'EINVAL';
  for (const entry of added) {
    const refusal = ruleRefusal(entry.spec, tableName, hooks.get(entry.chain) ?? new Set());
    if (refusal !== undefined) {
      blame = entry;
      errno = refusal;
      break;
    }
  }
  if (blame === undefined) {
    outer: for (const chain of table.chains.values())
      for (const rule of chain.rules) {
        if (addedRules.has(rule)) continue;
        const spec = ruleSpecOf(rule, tableName);
        if (spec !== undefined && !ruleFits(spec, tableName, hooks.get(chain.name) ?? new Set())) {
          blame = lastJump ?? added[added.length - 1];
          break outer;
        }
      }
  }
  if (blame !== undefined)
    return { error: kernelError(blame.op, errno, `rule in chain ${blame.chain}`), line: blame.line };
  const loop = draft.findLoop();
  if (loop !== undefined) {
    const entry = lastJump ?? added[added.length - 1]!;
    return { error: kernelError(entry.op, 'ELOOP', `rule in chain ${entry.chain}`), line: entry.line };
  }
  return undefined;
}

const ABORT: RulesetError = { errno: 'EINVAL', what: 'iptables command failed' };

function failure(error: IptError, program = 'iptables'): CommandOutput {
  return { stdout: '', stderr: formatIptablesError(error, program), exitCode: exitCodeOf(error) };
}

/** Runs a listing command (-L, -S) against the live ruleset. */
export function listCommand(store: RulesetStore, cmd: ParsedCommand): CommandOutput {
  if (!TABLES.has(cmd.table)) return failure({ kind: 'table', table: cmd.table });
  const table = store.ruleset.tables.find((t) => t.family === 'ip' && t.name === cmd.table);
  if (!compatible(table))
    return failure({
      kind: 'fatal',
      message: `table \`${cmd.table}' is incompatible, use 'nft' tool.`,
      exitCode: 1,
    });
  if (
    cmd.chain !== undefined &&
    builtinChain(cmd.table, cmd.chain) === undefined &&
    !table?.chains.has(cmd.chain)
  )
    return failure({
      kind: 'fatal',
      message: `chain \`${cmd.chain}' in table \`${cmd.table}' is incompatible, use 'nft' tool.`,
      exitCode: 1,
    });
  if (cmd.command === 'list-rules')
    return {
      stdout: listRules(cmd.table, table, cmd.chain, cmd.ruleNum, cmd.verbose),
      stderr: '',
      exitCode: 0,
    };
  const format: ListFormat = {
    numeric: cmd.numeric,
    verbose: cmd.verbose,
    exact: cmd.exact,
    lineNumbers: cmd.lineNumbers,
  };
  const stdout = listChains(cmd.table, table, cmd.chain, cmd.ruleNum, format);
  if (cmd.zero) {
    const zero: ParsedCommand = { ...cmd, command: 'zero' };
    store.transaction((draft) => (applyCommand(draft, zero, 0, []) === undefined ? undefined : ABORT), {
      process: 'iptables',
    });
  }
  return { stdout, stderr: '', exitCode: 0 };
}

/** `iptables ARGS...` on `store`. */
export function runIptables(store: RulesetStore, argv: readonly string[]): CommandOutput {
  const output = runParsed(store, argv);
  // The nft variant of iptables 1.8.9 ignores -W with a notice on stderr, before anything else it prints.
  const notice = argv.some(
    (word) => word === '-W' || word === '--wait-interval' || word.startsWith('--wait-interval='),
  );
  return notice
    ? { ...output, stderr: `Ignoring deprecated --wait-interval option.\n${output.stderr}` }
    : output;
}

/**
 * The parsed command of `argv`, from the process's line cache when another namespace ran the same words (kube-proxy's
 * jump rules on every node), so their rules share one compiled form and their chains one program. Words naming an
 * ipset are parsed each time: whether the set exists is the namespace's.
 */
function parsedCommand(store: RulesetStore, argv: readonly string[]): ParsedCommand | IptError {
  const cacheable = !argv.some((word) => word === 'set' || word === 'SET' || word.startsWith('--match-set'));
  const key = cacheable ? restoreLineCache.key('\0iptables', argv.join('\0')) : undefined;
  const known = key === undefined ? undefined : restoreLineCache.get(key);
  if (known !== undefined) return known;
  const cmd = parseCommand(argv, store.setExists === undefined ? {} : { setExists: store.setExists });
  if (key !== undefined && !('kind' in cmd)) restoreLineCache.set(key, cmd);
  return cmd;
}

function runParsed(store: RulesetStore, argv: readonly string[]): CommandOutput {
  const cmd = parsedCommand(store, argv);
  if ('kind' in cmd) return failure(cmd);
  const weird = weirdInterfaceWarnings(cmd.rule);
  if (weird === '') return runCommand(store, cmd);
  const output = runCommand(store, cmd);
  return { ...output, stderr: `${weird}${output.stderr}` };
}

/**
 * xtables_parse_interface: a name with `/` or a space is taken with a warning, printed as -i or -o is read (a
 * command line that fails later in the parse prints it too on Linux; here only parsed commands do).
 */
function weirdInterfaceWarnings(rule: ParsedCommand['rule']): string {
  let text = '';
  for (const sel of [rule?.iif, rule?.oif])
    if (sel !== undefined && (sel.name.includes('/') || sel.name.includes(' ')))
      text += `Warning: weird character in interface \`${sel.name}' ('/' and ' ' are not allowed by the kernel).\n`;
  return text;
}

function runCommand(store: RulesetStore, cmd: ParsedCommand): CommandOutput {
  switch (cmd.command) {
    case 'version':
      return { stdout: `iptables ${VERSION}\n`, stderr: '', exitCode: 0 };
    case 'help':
      return { stdout: helpText(), stderr: '', exitCode: 0 };
    case 'list':
    case 'list-rules':
      return listCommand(store, cmd);
  }
  let result: IptError | undefined;
  const added: AddedRule[] = [];
  store.transaction(
    (draft) => {
      result = applyCommand(draft, cmd, 0, added);
      if (result === undefined) result = checkBatch(draft, cmd.table, added)?.error;
      return result === undefined ? undefined : ABORT;
    },
    { process: 'iptables' },
  );
  if (result !== undefined) return failure(result);
  let stdout = '';
  if (cmd.verbose && cmd.rule !== undefined && added.length > 0) {
    const entry = added[0]!;
    stdout = `${ruleLine(entry.spec, entry.rule, 0, { numeric: true, verbose: false, exact: false, lineNumbers: false, notable: true })}\n`;
  }
  // Warnings the kernel's checkentry prints for a rule it takes (xt_iprange's reversed range).
  const target = cmd.rule?.target?.kind === 'xt' ? cmd.rule.target.target : undefined;
  const stderr = [
    ...(cmd.rule?.matches ?? []).flatMap((match) => match.warnings?.() ?? []),
    ...(target?.warnings?.() ?? []),
  ].map((line) => `${line}\n`);
  return { stdout, stderr: stderr.join(''), exitCode: 0 };
}

/** A short usage text (the real help's first lines). */
function helpText(): string {
  return `iptables ${VERSION}

Usage: iptables -[ACD] chain rule-specification [options]
       iptables -I chain [rulenum] rule-specification [options]
       iptables -R chain rulenum rule-specification [options]
       iptables -D chain rulenum [options]
       iptables -[LS] [chain [rulenum]] [options]
       iptables -[FZ] [chain] [options]
       iptables -[NX] chain
       iptables -E old-chain-name new-chain-name
       iptables -P chain target [options]
       iptables -h (print this help information)
`;
}
