// The statistic match (xt_statistic.c): `--mode random --probability P` and `--mode nth --every N --packet P`.

import type { Rng } from '../../core/rng.ts';
import type { Rule, XtMatchOptions } from '../ir.ts';

type Statistic = Extract<XtMatchOptions, { name: 'statistic' }>;

/**
 * Per-rule nth counters (the kernel's info->master->count). libxt_statistic starts them at
 * (every - 1) - packet, so the packet numbered `packet` from 0 is the first to match.
 */
const counters = new WeakMap<Rule, number>();

export function statisticMatches(options: Statistic, rule: Rule, rng: Rng): boolean {
  if (options.mode === 'random') {
    // statistic_mt: (get_random_u32() & 0x7FFFFFFF) < probability, probability = P * 2^31 rounded as iptables does.
    const threshold = Math.round(options.probability * 0x8000_0000);
    return (rng.u32() & 0x7fff_ffff) < threshold;
  }
  // iptables stores every - 1; the count wraps to 0 on the matching packet.
  const every = options.every - 1;
  const count = counters.get(rule) ?? every - options.packet;
  const next = count === every ? 0 : count + 1;
  counters.set(rule, next);
  return next === 0;
}
