// The nftables front end: the nft language parsed into the rule IR, `nft list` printing and `nft monitor trace`.

export { type ApplyOptions, type ApplyResult, applyCommands } from './apply.ts';
export type { Command, ParsedRule } from './ast.ts';
export { type ErrorRecord, formatError, type Location, Source } from './location.ts';
export { formatTraceEvent, packetFields, TraceMonitor } from './monitor.ts';
export { formatRulesetCommit, formatRulesetEvent, RulesetMonitor } from './monitor-ruleset.ts';
export { type ParseResult, parseNft } from './parser.ts';
export {
  formatPriority,
  formatRule,
  type PrintOptions,
  printChain,
  printChains,
  printRuleset,
  printSet,
  printSets,
  printTable,
  printTables,
} from './printer.ts';
export { type NftRunOptions, type NftRunResult, runNft } from './run.ts';
