// The match and target modules packetlab's iptables knows, by the names `-m` and `-j` load them with.

import type { MatchModule, TargetModule } from './extension.ts';
import { addrtypeMatch } from './match-addrtype.ts';
import { commentMatch } from './match-comment.ts';
// ---- issue 12, ipt-b: more IPv4 matches and targets ----
import { connlimitMatch } from './match-connlimit.ts';
import { conntrackMatch, stateMatch } from './match-conntrack.ts';
import { dccpMatch } from './match-dccp.ts';
import { dscpMatch } from './match-dscp.ts';
import { ecnMatch } from './match-ecn.ts';
import { hashlimitMatch } from './match-hashlimit.ts';
import { helperMatch } from './match-helper.ts';
import { icmpMatch } from './match-icmp.ts';
import { iprangeMatch } from './match-iprange.ts';
import { lengthMatch } from './match-length.ts';
import { limitMatch } from './match-limit.ts';
import { macMatch } from './match-mac.ts';
import { connmarkMatch, markMatch } from './match-mark.ts';
import { multiportMatch } from './match-multiport.ts';
import { ownerMatch } from './match-owner.ts';
import { physdevMatch } from './match-physdev.ts';
import { pkttypeMatch } from './match-pkttype.ts';
import { policyMatch } from './match-policy.ts';
import { recentMatch } from './match-recent.ts';
import { rpfilterMatch } from './match-rpfilter.ts';
import { sctpMatch } from './match-sctp.ts';
import { setMatch } from './match-set.ts';
import { socketMatch } from './match-socket.ts';
import { ahMatch, espMatch } from './match-spi.ts';
import { statisticMatch } from './match-statistic.ts';
import { stringMatch } from './match-string.ts';
import { tcpMatch, udpMatch } from './match-tcp.ts';
import { timeMatch } from './match-time.ts';
import { tosMatch } from './match-tos.ts';
import { ttlMatch } from './match-ttl.ts';
import { u32Match } from './match-u32.ts';
import { ctTarget, notrackTarget } from './target-ct.ts';
import { logTarget } from './target-log.ts';
import { checksumTarget, dscpTarget, ecnTarget, tosTarget } from './target-mangle.ts';
import { connmarkTarget, markTarget } from './target-mark.ts';
import { dnatTarget, masqueradeTarget, redirectTarget, snatTarget } from './target-nat.ts';
import { netmapTarget } from './target-netmap.ts';
import { nflogTarget } from './target-nflog.ts';
import { nfqueueTarget } from './target-nfqueue.ts';
import { rejectTarget } from './target-reject.ts';
import { setTarget } from './target-set.ts';
import { tcpmssTarget } from './target-tcpmss.ts';
import { tproxyTarget } from './target-tproxy.ts';
import { traceTarget } from './target-trace.ts';
// ---- end ipt-b ----

export const MATCHES: ReadonlyMap<string, MatchModule> = new Map(
  [
    tcpMatch,
    udpMatch,
    icmpMatch,
    commentMatch,
    markMatch,
    connmarkMatch,
    conntrackMatch,
    stateMatch,
    addrtypeMatch,
    statisticMatch,
    multiportMatch,
    recentMatch,
    setMatch,
    lengthMatch,
    pkttypeMatch,
    iprangeMatch,
    ttlMatch,
    dscpMatch,
    macMatch,
    ownerMatch,
    socketMatch,
    physdevMatch,
    // ---- issue 12, ipt-b ----
    sctpMatch,
    dccpMatch,
    limitMatch,
    hashlimitMatch,
    connlimitMatch,
    helperMatch,
    rpfilterMatch,
    u32Match,
    stringMatch,
    timeMatch,
    policyMatch,
    ahMatch,
    espMatch,
    ecnMatch,
    tosMatch,
    // ---- end ipt-b ----
  ].map((module) => [module.name, module]),
);

export const TARGETS: ReadonlyMap<string, TargetModule> = new Map(
  [
    rejectTarget,
    markTarget,
    connmarkTarget,
    dnatTarget,
    snatTarget,
    masqueradeTarget,
    redirectTarget,
    logTarget,
    traceTarget,
    ctTarget,
    notrackTarget,
    setTarget,
    tproxyTarget,
    tcpmssTarget,
    // ---- issue 12, ipt-b ----
    nflogTarget,
    nfqueueTarget,
    checksumTarget,
    netmapTarget,
    ecnTarget,
    tosTarget,
    dscpTarget,
    // ---- end ipt-b ----
  ].map((module) => [module.name, module]),
);

/** Verdicts iptables spells as targets (XTC_LABEL_*). */
export const STANDARD_TARGETS = ['ACCEPT', 'DROP', 'RETURN', 'QUEUE'] as const;
export type StandardVerdict = (typeof STANDARD_TARGETS)[number];

export function isStandardTarget(name: string): name is StandardVerdict {
  return (STANDARD_TARGETS as readonly string[]).includes(name);
}

/** Whether `name` names a target (standard or module), which a chain may not be called. */
export function isTargetName(name: string): boolean {
  return isStandardTarget(name) || TARGETS.has(name);
}
