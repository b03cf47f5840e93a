// The net.netfilter.nf_conntrack_* sysctls of one namespace, bound to its Conntrack: the table limit, the live count, the timeouts and the TCP switches; no acct, timestamp, events, helper or log_invalid keys (packetlab has none of those features).
//
// Mirrors net/netfilter/nf_conntrack_standalone.c (nf_ct_sysctl_table) as a namespace on Linux
// 6.18 shows it: timeouts are proc_dointvec_jiffies (any value whose jiffies fit an int: with
// HZ 250, -8589934 to 8589934 seconds, negative ones accepted), the TCP switches u8 with their
// ranges, nf_conntrack_count and nf_conntrack_buckets read-only.
//
// Deviation: outside the initial namespace Linux also makes nf_conntrack_max read-only (it is
// one global value). A packetlab namespace that stands for a node lets it be written, as on the
// node itself, and the table's limit follows (values above the table's 8,388,606 entries cap at
// that; 0 means no limit, as in the kernel).
//
// The file takes the namespace's sysctl tree through a structural interface, so netfilter does
// not import net/.

import type { Conntrack } from './conntrack.ts';
import { DEFAULT_CONNTRACK_MAX, MAX_ENTRIES } from './table.ts';
import {
  TCP_CONNTRACK_CLOSE,
  TCP_CONNTRACK_CLOSE_WAIT,
  TCP_CONNTRACK_ESTABLISHED,
  TCP_CONNTRACK_FIN_WAIT,
  TCP_CONNTRACK_LAST_ACK,
  TCP_CONNTRACK_RETRANS,
  TCP_CONNTRACK_SYN_RECV,
  TCP_CONNTRACK_SYN_SENT,
  TCP_CONNTRACK_TIME_WAIT,
  TCP_CONNTRACK_UNACK,
} from './tcp.ts';

/** What this file needs of the namespace's sysctl tree (net/sysctl.ts: Sysctls). */
export interface SysctlRegistry {
  define(
    key: string,
    spec: { defaultValue: string; min: number; max: number; readOnly?: boolean },
    binding?: { read?: () => number; write?: (value: number) => void },
  ): void;
}

const NS_PER_SEC = 1_000_000_000;
const INT_MAX = 2_147_483_647;
/** proc_dointvec_jiffies: seconds * HZ (250) must fit an int. */
const JIFFIES_LIMIT = Math.floor(INT_MAX / 250);
/** The kernel's hash size on a machine with more than 4 GiB of RAM, as seen on the reference machines. */
const BUCKETS = DEFAULT_CONNTRACK_MAX;
/** nf_ct_expect_max: buckets / 64 (read-only outside the initial namespace). */
const EXPECT_MAX = 4096;

const PREFIX = 'net.netfilter.nf_conntrack_';

/** TCP timeout keys and the TCP_CONNTRACK_* state each one sets. */
const TCP_TIMEOUTS: readonly (readonly [string, number])[] = [
  ['close', TCP_CONNTRACK_CLOSE],
  ['close_wait', TCP_CONNTRACK_CLOSE_WAIT],
  ['established', TCP_CONNTRACK_ESTABLISHED],
  ['fin_wait', TCP_CONNTRACK_FIN_WAIT],
  ['last_ack', TCP_CONNTRACK_LAST_ACK],
  ['max_retrans', TCP_CONNTRACK_RETRANS],
  ['syn_recv', TCP_CONNTRACK_SYN_RECV],
  ['syn_sent', TCP_CONNTRACK_SYN_SENT],
  ['time_wait', TCP_CONNTRACK_TIME_WAIT],
  ['unacknowledged', TCP_CONNTRACK_UNACK],
];

/** A timeout key: shown in whole seconds (truncated, as jiffies / HZ), written in seconds. */
function timeout(sysctls: SysctlRegistry, name: string, get: () => number, set: (ns: number) => void): void {
  const seconds = (): number => Math.trunc(get() / NS_PER_SEC);
  sysctls.define(
    `${PREFIX}${name}`,
    { defaultValue: String(seconds()), min: -JIFFIES_LIMIT, max: JIFFIES_LIMIT },
    { read: seconds, write: (value) => set(value * NS_PER_SEC) },
  );
}

function flag(sysctls: SysctlRegistry, name: string, get: () => boolean, set: (on: boolean) => void): void {
  sysctls.define(
    `${PREFIX}${name}`,
    { defaultValue: get() ? '1' : '0', min: 0, max: 1 },
    { read: () => (get() ? 1 : 0), write: (value) => set(value !== 0) },
  );
}

/** Defines the conntrack sysctls of a namespace, read from and written to `ct`. */
export function defineConntrackSysctls(sysctls: SysctlRegistry, ct: Conntrack): void {
  const settings = ct.settings;
  const table = ct.table;
  sysctls.define(
    `${PREFIX}max`,
    { defaultValue: String(table.max), min: 0, max: INT_MAX },
    {
      write: (value) => {
        table.max = Math.min(value, MAX_ENTRIES);
      },
    },
  );
  sysctls.define(
    `${PREFIX}count`,
    { defaultValue: '0', min: 0, max: INT_MAX, readOnly: true },
    { read: () => ct.count },
  );
  sysctls.define(`${PREFIX}buckets`, { defaultValue: String(BUCKETS), min: 0, max: INT_MAX, readOnly: true });
  sysctls.define(`${PREFIX}expect_max`, {
    defaultValue: String(EXPECT_MAX),
    min: 0,
    max: INT_MAX,
    readOnly: true,
  });
  timeout(
    sysctls,
    'generic_timeout',
    () => settings.genericTimeout,
    (ns) => {
      settings.genericTimeout = ns;
    },
  );
  timeout(
    sysctls,
    'icmp_timeout',
    () => settings.icmpTimeout,
    (ns) => {
      settings.icmpTimeout = ns;
    },
  );
  const tcp = settings.tcp;
  flag(
    sysctls,
    'tcp_be_liberal',
    () => tcp.beLiberal,
    (on) => {
      tcp.beLiberal = on;
    },
  );
  flag(
    sysctls,
    'tcp_ignore_invalid_rst',
    () => tcp.ignoreInvalidRst,
    (on) => {
      tcp.ignoreInvalidRst = on;
    },
  );
  flag(
    sysctls,
    'tcp_loose',
    () => tcp.loose,
    (on) => {
      tcp.loose = on;
    },
  );
  sysctls.define(
    `${PREFIX}tcp_max_retrans`,
    { defaultValue: String(tcp.maxRetrans), min: 0, max: 255 },
    {
      read: () => tcp.maxRetrans,
      write: (value) => {
        tcp.maxRetrans = value;
      },
    },
  );
  for (const [name, state] of TCP_TIMEOUTS) {
    timeout(
      sysctls,
      `tcp_timeout_${name}`,
      () => tcp.timeouts[state]!,
      (ns) => {
        tcp.timeouts[state] = ns;
      },
    );
  }
  const udp = settings.udp;
  timeout(
    sysctls,
    'udp_timeout',
    () => udp.timeoutUnreplied,
    (ns) => {
      udp.timeoutUnreplied = ns;
    },
  );
  timeout(
    sysctls,
    'udp_timeout_stream',
    () => udp.timeoutStream,
    (ns) => {
      udp.timeoutStream = ns;
    },
  );
}
