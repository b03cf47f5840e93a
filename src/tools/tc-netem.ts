// netem's options for `tc` (iproute2 6.1's tc/q_netem.c): netem_parse_opt into the kernel's NetemConfig, with tc's
// error texts, and netem_print_opt over what the kernel reports; no loss models, ecn, slot or percent rates.

import { NETEM_DEFAULTS, type NetemConfig, percentToProbability } from '../link/qdisc/netem.ts';
import type { NetemDistribution } from '../link/qdisc/netem-tables.ts';
import { nsToTicks, ticksToNs } from '../link/qdisc/psched.ts';
import { type CommandResult, fail, unsupported } from './result.ts';
import {
  formatG,
  formatRate,
  formatTime,
  incomplete,
  matches,
  parsePercent,
  parseRate,
  parseSize,
  tickToTime,
  timeToTicks,
} from './tc-units.ts';

const NETEM_USAGE = `Usage: ... netem [ limit PACKETS ]
                 [ delay TIME [ JITTER [CORRELATION]]]
                 [ distribution {uniform|normal|pareto|paretonormal} ]
                 [ corrupt PERCENT [CORRELATION]]
                 [ duplicate PERCENT [CORRELATION]]
                 [ loss random PERCENT [CORRELATION]]
                 [ loss state P13 [P31 [P32 [P23 P14]]]
                 [ loss gemodel PERCENT [R [1-H [1-K]]]
                 [ ecn ]
                 [ reorder PERCENT [CORRELATION] [ gap DISTANCE ]]
                 [ rate RATE [PACKETOVERHEAD] [CELLSIZE] [CELLOVERHEAD]]
                 [ slot MIN_DELAY [MAX_DELAY] [packets MAX_PACKETS] [bytes MAX_BYTES]]
                 [ slot distribution {uniform|normal|pareto|paretonormal|custom}
                   DELAY JITTER [packets MAX_PACKETS] [bytes MAX_BYTES]]
`;

/** Where Debian's tc looks for distribution tables (get_tc_lib), as its error text names it. */
const TC_LIB = '/usr/lib/x86_64-linux-gnu/tc/';

/** q_netem.c's NEXT_IS_NUMBER: the next word starts with a digit. */
function isNumber(word: string | undefined): boolean {
  return word !== undefined && /^[0-9]/.test(word);
}

function netemError(message: string, usage: boolean): CommandResult {
  return fail(`${message}\n${usage ? NETEM_USAGE : ''}`, 1);
}

/** netem_parse_opt of iproute2 6.1 (the options packetlab models). */
export function parseNetem(args: string[]): NetemConfig | CommandResult {
  const c: { -readonly [K in keyof NetemConfig]: NetemConfig[K] } = { ...NETEM_DEFAULTS };
  let latencyTicks = 0;
  let jitterTicks = 0;
  let distribution: string | null = null;
  let lossGiven = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const nextIsNumber = (): boolean => isNumber(args[i + 1]);
    const value = (): string | undefined => args[++i];
    const percent = (label: string): number | CommandResult => {
      const text = value();
      if (text === undefined) return incomplete();
      const fraction = parsePercent(text);
      if (fraction === undefined) return netemError(`Illegal "${label}"`, false);
      return percentToProbability(fraction * 100);
    };
    if (matches(arg, 'limit')) {
      const text = value();
      if (text === undefined) return incomplete();
      const size = parseSize(text);
      if (size === undefined) return netemError('Illegal "limit"', false);
      c.limit = size;
    } else if (matches(arg, 'latency') || matches(arg, 'delay')) {
      const text = value();
      if (text === undefined) return incomplete();
      const ticks = timeToTicks(text);
      if (ticks === undefined) return netemError('Illegal "latency"', false);
      latencyTicks = ticks;
      if (nextIsNumber()) {
        const jitter = timeToTicks(value()!);
        if (jitter === undefined) return netemError('Illegal "latency"', false);
        jitterTicks = jitter;
        if (nextIsNumber()) {
          const corr = percent('latency');
          if (typeof corr !== 'number') return corr;
          c.delayCorrelation = corr;
        }
      }
    } else if (matches(arg, 'loss') || matches(arg, 'drop')) {
      if (lossGiven) return netemError('Illegal "duplicate loss argument\n"', false);
      lossGiven = true;
      let text = value();
      if (text === undefined) return incomplete();
      if (!/^[0-9]/.test(text)) {
        if (text === 'state' || text === 'gemodel') return unsupported('tc', `netem loss ${text}`);
        if (text !== 'random') return fail(`Unknown loss parameter: ${text}\n`, 1);
        text = value();
        if (text === undefined) return incomplete();
      }
      const fraction = parsePercent(text);
      if (fraction === undefined) return netemError('Illegal "loss percent"', false);
      c.loss = percentToProbability(fraction * 100);
      if (nextIsNumber()) {
        const corr = parsePercent(value()!);
        if (corr === undefined) return netemError('Illegal "loss correllation"', false);
        c.lossCorrelation = percentToProbability(corr * 100);
      }
    } else if (matches(arg, 'ecn')) {
      return unsupported('tc', 'netem ecn');
    } else if (matches(arg, 'reorder')) {
      const p = percent('reorder');
      if (typeof p !== 'number') return p;
      c.reorder = p;
      if (nextIsNumber()) {
        const corr = percent('reorder');
        if (typeof corr !== 'number') return corr;
        c.reorderCorrelation = corr;
      }
    } else if (matches(arg, 'corrupt')) {
      const p = percent('corrupt');
      if (typeof p !== 'number') return p;
      c.corrupt = p;
      if (nextIsNumber()) {
        const corr = percent('corrupt');
        if (typeof corr !== 'number') return corr;
        c.corruptCorrelation = corr;
      }
    } else if (matches(arg, 'gap')) {
      const text = value();
      if (text === undefined) return incomplete();
      const gap = parseU32(text);
      if (gap === undefined) return netemError('Illegal "gap"', false);
      c.gap = gap;
    } else if (matches(arg, 'duplicate')) {
      const p = percent('duplicate');
      if (typeof p !== 'number') return p;
      c.duplicate = p;
      if (nextIsNumber()) {
        const corr = percent('duplicate');
        if (typeof corr !== 'number') return corr;
        c.duplicateCorrelation = corr;
      }
    } else if (matches(arg, 'distribution')) {
      const text = value();
      if (text === undefined) return incomplete();
      if (text !== 'normal' && text !== 'pareto' && text !== 'paretonormal') {
        if (text === 'experimental') return unsupported('tc', 'netem distribution experimental');
        return fail(
          `No distribution data for ${text} (${TC_LIB}/${text}.dist: No such file or directory)\n`,
          1,
        );
      }
      distribution = text;
    } else if (matches(arg, 'rate')) {
      const text = value();
      if (text === undefined) return incomplete();
      if (text.includes('%')) return unsupported('tc', 'netem rate PERCENT');
      const rate = parseRate(text);
      if (rate === undefined) return netemError('Illegal "rate"', false);
      c.rate = rate;
      const signed = (word: string | undefined): boolean => word !== undefined && /^[0-9-]/.test(word);
      if (signed(args[i + 1])) {
        const v = parseS32(value()!);
        if (v === undefined) return netemError('Illegal "rate"', false);
        c.packetOverhead = v;
      }
      if (nextIsNumber()) {
        const v = parseU32(value()!);
        if (v === undefined) return netemError('Illegal "rate"', false);
        c.cellSize = v;
      }
      if (signed(args[i + 1])) {
        const v = parseS32(value()!);
        if (v === undefined) return netemError('Illegal "rate"', false);
        c.cellOverhead = v;
      }
    } else if (matches(arg, 'slot')) {
      return unsupported('tc', 'netem slot');
    } else if (arg === 'help') {
      return fail(NETEM_USAGE, 1);
    } else {
      return fail(`What is "${arg}"?\n${NETEM_USAGE}`, 1);
    }
  }
  if (c.reorder !== 0) {
    if (latencyTicks === 0) return netemError('reordering not possible without specifying some delay', true);
    if (c.gap === 0) c.gap = 1;
  } else if (c.gap > 0) {
    return netemError('gap specified without reorder probability', true);
  }
  if (distribution !== null && (latencyTicks === 0 || jitterTicks === 0))
    return netemError('distribution specified but no latency and jitter values', true);
  c.latencyNs = ticksToNs(latencyTicks);
  c.jitterNs = ticksToNs(jitterTicks);
  c.distribution = distribution as NetemDistribution | null;
  return c;
}

function parseU32(text: string): number | undefined {
  if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(text)) return undefined;
  const v = Number(text);
  return v > 0xffff_ffff ? undefined : v;
}

function parseS32(text: string): number | undefined {
  if (!/^-?[0-9]+$/.test(text)) return undefined;
  const v = Number(text);
  return v < -0x8000_0000 || v > 0x7fff_ffff ? undefined : v;
}

/** __print_percent: `%g%%` of the u32 probability as a percentage. */
function percentText(probability: number): string {
  return `${formatG((100 * probability) / 0xffff_ffff, 6)}%`;
}

/** netem_print_opt of iproute2 6.1 over what netem_dump reports (delay and jitter in psched ticks). */
export function describeNetem(c: NetemConfig): string {
  let text = `limit ${c.limit}`;
  const latencyTicks = Math.min(nsToTicks(c.latencyNs), 0xffff_ffff);
  const jitterTicks = Math.min(nsToTicks(c.jitterNs), 0xffff_ffff);
  if (latencyTicks !== 0) {
    text += ` delay ${formatTime(tickToTime(latencyTicks))}`;
    if (jitterTicks !== 0) {
      text += `  ${formatTime(tickToTime(jitterTicks))}`;
      if (c.delayCorrelation !== 0) text += ` ${percentText(c.delayCorrelation)}`;
    }
  }
  if (c.loss !== 0) {
    text += ` loss ${percentText(c.loss)}`;
    if (c.lossCorrelation !== 0) text += ` ${percentText(c.lossCorrelation)}`;
  }
  if (c.duplicate !== 0) {
    text += ` duplicate ${percentText(c.duplicate)}`;
    if (c.duplicateCorrelation !== 0) text += ` ${percentText(c.duplicateCorrelation)}`;
  }
  if (c.reorder !== 0) {
    text += ` reorder ${percentText(c.reorder)}`;
    if (c.reorderCorrelation !== 0) text += ` ${percentText(c.reorderCorrelation)}`;
  }
  if (c.corrupt !== 0) {
    text += ` corrupt ${percentText(c.corrupt)}`;
    if (c.corruptCorrelation !== 0) text += ` ${percentText(c.corruptCorrelation)}`;
  }
  if (c.rate !== 0) {
    text += ` rate ${formatRate(c.rate)}`;
    if (c.packetOverhead !== 0) text += ` packetoverhead ${c.packetOverhead}`;
    if (c.cellSize !== 0) text += ` cellsize ${c.cellSize}`;
    if (c.cellOverhead !== 0) text += ` celloverhead ${c.cellOverhead}`;
  }
  if (c.gap !== 0) text += ` gap ${c.gap}`;
  return text;
}
