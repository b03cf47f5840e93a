// The iptables front end: iptables, iptables-save, iptables-restore and xtables-monitor over the rule IR.

export { type AddedRule, applyCommand, type CommandOutput, checkBatch, runIptables } from './command.ts';
export {
  formatIptablesError,
  formatRestoreError,
  type IptError,
  VERSION,
} from './errors.ts';
export { conntrackStateMatches } from './match-conntrack.ts';
export { icmpMatches } from './match-icmp.ts';
export { multiportMatches } from './match-multiport.ts';
export { formatTracePacket, formatXtablesTrace } from './monitor.ts';
export { type ParsedCommand, parseCommand, type RuleSpec } from './parser.ts';
export { parseRestoreArgs, type RestoreOptions, restoreRuleset } from './restore.ts';
export { type CompiledRule, compileRule, ruleSpecOf, savedArgs } from './rule.ts';
export { ctime, listRules, saveTable, saveTables } from './save.ts';
export { TABLES } from './tables.ts';
export { tokenizeRestoreLine } from './tokenize.ts';
