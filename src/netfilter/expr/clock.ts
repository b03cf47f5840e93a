// The wall-clock meta keys' values on a packet (`meta time`, `meta day`, `meta hour`): the virtual clock read as wall
// time from the iptables time match's epoch (xt/ext-matches.ts: VIRTUAL_EPOCH_SECONDS), in UTC. No time zones.

import { VIRTUAL_EPOCH_SECONDS } from '../xt/ext-matches.ts';

const NS_PER_SEC = 1e9;
const SECONDS_PER_DAY = 86_400;

/** The wall clock's seconds at virtual time `nowNs`. */
function wallSeconds(nowNs: number): number {
  return VIRTUAL_EPOCH_SECONDS + Math.floor(nowNs / NS_PER_SEC);
}

/**
 * mirrors nft_meta.c:nft_meta_get_eval_time: `time` is ktime_get_real_ns() (a double here: exact to 256 ns),
 * `day` nft_meta_weekday (1970-01-01 was a Thursday), `hour` the seconds since midnight (UTC, sys_tz 0).
 */
export function readClock(key: 'time' | 'day' | 'hour', nowNs: number): number {
  switch (key) {
    case 'time':
      return VIRTUAL_EPOCH_SECONDS * NS_PER_SEC + nowNs;
    case 'day':
      return (Math.floor(wallSeconds(nowNs) / SECONDS_PER_DAY) + 4) % 7;
    case 'hour':
      return wallSeconds(nowNs) % SECONDS_PER_DAY;
  }
}
