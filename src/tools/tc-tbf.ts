// tbf's options for `tc` (iproute2 6.1's tc/q_tbf.c): tbf_parse_opt into the kernel's TbfConfig, with tc's error
// texts, the kernel's refusals (tbf_change), and tbf_print_opt over tbf_dump; no mpu, overhead, linklayer or cells.

import type { TbfConfig, TbfDump } from '../link/qdisc/tbf.ts';
import { type CommandResult, fail, unsupported } from './result.ts';
import {
  formatRate,
  formatSize,
  formatTime,
  incomplete,
  matches,
  parseRate,
  parseSize,
  parseTime,
  tickToTime,
  xmitSize,
} from './tc-units.ts';

const TBF_USAGE = `Usage: ... tbf limit BYTES burst BYTES[/BYTES] rate KBPS [ mtu BYTES[/BYTES] ]
\t[ peakrate KBPS ] [ latency TIME ] [ overhead BYTES ] [ linklayer TYPE ]
`;

function tbfError(text: string): CommandResult {
  return fail(text, 1);
}

/** tbf_parse_opt of iproute2 6.1. */
export function parseTbf(args: string[]): TbfConfig | CommandResult {
  let limit = 0;
  let latency = 0;
  let buffer = 0;
  let mtu = 0;
  let rate = 0;
  let peakrate = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string | undefined => args[++i];
    const illegal = (name: string, text: string): CommandResult =>
      tbfError(`tbf: illegal value for "${name}": "${text}"\n`);
    if (matches(arg, 'limit')) {
      const text = value();
      if (text === undefined) return incomplete();
      if (limit !== 0) return tbfError('tbf: duplicate "limit" specification\n');
      if (latency !== 0) return tbfError('tbf: specifying both "latency" and "limit" is not allowed\n');
      const size = parseSize(text);
      if (size === undefined) return illegal('limit', text);
      limit = size;
    } else if (matches(arg, 'latency')) {
      const text = value();
      if (text === undefined) return incomplete();
      if (latency !== 0) return tbfError('tbf: duplicate "latency" specification\n');
      if (limit !== 0) return tbfError('tbf: specifying both "limit" and "/latency" is not allowed\n');
      const time = parseTime(text);
      if (time === undefined) return illegal('latency', text);
      latency = time;
    } else if (matches(arg, 'burst') || arg === 'buffer' || arg === 'maxburst') {
      const text = value();
      if (text === undefined) return incomplete();
      if (buffer !== 0) return tbfError('tbf: duplicate "buffer/burst/maxburst" specification\n');
      if (text.includes('/')) return unsupported('tc', 'tbf burst BYTES/CELL');
      const size = parseSize(text);
      if (size === undefined) return illegal(arg, text);
      buffer = size;
    } else if (arg === 'mtu' || arg === 'minburst') {
      const text = value();
      if (text === undefined) return incomplete();
      if (mtu !== 0) return tbfError('tbf: duplicate "mtu/minburst" specification\n');
      if (text.includes('/')) return unsupported('tc', 'tbf mtu BYTES/CELL');
      const size = parseSize(text);
      if (size === undefined) return illegal(arg, text);
      mtu = size;
    } else if (arg === 'rate') {
      const text = value();
      if (text === undefined) return incomplete();
      if (rate !== 0) return tbfError('tbf: duplicate "rate" specification\n');
      const parsed = parseRate(text);
      if (parsed === undefined) return illegal('rate', text);
      rate = parsed;
    } else if (matches(arg, 'peakrate')) {
      const text = value();
      if (text === undefined) return incomplete();
      if (peakrate !== 0) return tbfError('tbf: duplicate "peakrate" specification\n');
      const parsed = parseRate(text);
      if (parsed === undefined) return illegal('peakrate', text);
      peakrate = parsed;
    } else if (arg === 'mpu' || matches(arg, 'overhead') || matches(arg, 'linklayer')) {
      return unsupported('tc', `tbf ${arg}`);
    } else if (arg === 'help') {
      return tbfError(TBF_USAGE);
    } else {
      return tbfError(`tbf: unknown parameter "${arg}"\n${TBF_USAGE}`);
    }
  }
  let errors = '';
  if (rate === 0) errors += 'tbf: the "rate" parameter is mandatory.\n';
  if (buffer === 0) errors += 'tbf: the "burst" parameter is mandatory.\n';
  if (peakrate !== 0 && mtu === 0)
    errors += 'tbf: when "peakrate" is specified, "mtu" must also be specified.\n';
  if (limit === 0 && latency === 0) errors += 'tbf: either "limit" or "latency" is required.\n';
  if (errors !== '') return tbfError(errors + TBF_USAGE);
  if (limit === 0) {
    let lim = (rate * latency) / 1e6 + buffer;
    if (peakrate !== 0) lim = Math.min(lim, (peakrate * latency) / 1e6 + mtu);
    limit = Math.trunc(lim);
  }
  return { rate, burst: buffer, limit, peakrate, mtu: peakrate !== 0 ? mtu : 0 };
}

/** tbf_change's refusals: a peak rate not above the rate, an empty bucket. */
export function checkTbf(config: TbfConfig): CommandResult | undefined {
  if (config.peakrate > 0 && config.peakrate <= config.rate)
    return fail('RTNETLINK answers: Invalid argument\n', 2);
  if (config.burst === 0) return fail('RTNETLINK answers: Invalid argument\n', 2);
  return undefined;
}

/** tbf_print_opt: rate, burst (back from the bucket's ticks), peak rate and minburst, then latency or limit. */
export function describeTbf(d: TbfDump, details: boolean): string {
  let text = `rate ${formatRate(d.rate)} `;
  const burst = formatSize(xmitSize(d.rate, d.bufferTicks));
  text += details ? `burst ${burst}/1 mpu 0b ` : `burst ${burst} `;
  if (d.peakrate !== 0) {
    text += `peakrate ${formatRate(d.peakrate)} `;
    if (d.mtuTicks !== 0) {
      const mtu = formatSize(xmitSize(d.peakrate, d.mtuTicks));
      text += details ? `mtu ${mtu}/1 mpu 0b ` : `minburst ${mtu} `;
    }
  }
  let latency = 1e6 * (d.limit / d.rate) - tickToTime(d.bufferTicks);
  if (d.peakrate !== 0) {
    const lat2 = 1e6 * (d.limit / d.peakrate) - tickToTime(d.mtuTicks);
    if (lat2 > latency) latency = lat2;
  }
  if (latency >= 0) text += `lat ${formatTime(Math.trunc(latency))} `;
  else text += `limit ${formatSize(d.limit)} `;
  if (details) text += 'linklayer ethernet ';
  return text;
}
