// Cilium's iptables-mode chains with kube-proxy (cilium.ts) on packetlab: the scenario's outcome and where each
// component's mark bits land (kube-proxy's 0x4000 gone after KUBE-POSTROUTING, Cilium's 0xc00 "from host" kept in
// 0xf00), then the L7 proxy redirection: with the mark Cilium's BPF program gives a pod's packet for its proxy
// (0x3a3c0200: proxy port 15418 in network order over "to proxy" 0x200), CILIUM_PRE_raw takes the flow out of
// conntrack (so kube-proxy's DNAT never sees it), CILIUM_PRE_mangle's TPROXY hands the SYN to the transparent
// proxy with the mark 0x200, -m socket --transparent keeps the rest of the flow on it, and the proxy's answers
// (SO_MARK 0xa00) are NOTRACKed and accepted as proxy return traffic.

import { describe, expect, it } from 'vitest';
import type { Observed } from '../../src/harness/observed.ts';
import { runPacketlab } from '../../src/harness/packetlab-driver.ts';
import type { TcpSocket } from '../../src/socket/tcp/socket.ts';
import { exec, execOrThrow as must } from '../../src/tools/exec.ts';
import { formatIpv4, parseIpv4 } from '../../src/wire/address.ts';
import { ciliumNode, ciliumScenario } from './cilium.ts';

function output(observed: Observed, labelStart: string): string {
  const found = [...observed.traffic, ...observed.observe].find((o) => o.label.startsWith(labelStart));
  if (found === undefined) throw new Error(`no output labelled ${labelStart}`);
  return `${found.stdout}${found.stderr}`;
}

/** `[packets:bytes]` of the first iptables-save -c line containing `text`. */
function counter(saved: string, text: string): string {
  const line = saved.split('\n').find((one) => one.includes(text));
  if (line === undefined) throw new Error(`no rule ${text}`);
  return /^\[(\d+:\d+)\]/.exec(line)?.[1] ?? '?';
}

describe('shapes: Cilium iptables mode with kube-proxy', () => {
  const run = runPacketlab(ciliumScenario());
  const saved = output(run, 'w1: iptables-save');

  it('a pod reaches the outside masqueraded by CILIUM_POST_nat, the host reaches the ClusterIP', () => {
    expect(output(run, 'ext: tcp echo')).toMatch(/^accept 172\.18\.0\.2:41234$/m);
    expect(output(run, 'web: tcp echo')).toMatch(/^accept 172\.18\.0\.2:\d+$/m);
    expect(counter(saved, 'cilium masquerade non-cluster')).toBe('1:60');
    expect(counter(saved, 'cluster->any on lxc+ forward accept"')).toBe('6:328');
    expect(counter(saved, '-j KUBE-MARK-MASQ')).toBe('0:0');
    expect(counter(saved, '-A KUBE-MARK-MASQ')).toBe('1:60');
  });

  it("kube-proxy's 0x4000 and Cilium's 0xc00/0xf00 share the host's packets; only 0xc00 is left past KUBE-POSTROUTING", () => {
    const probe = output(run, 'w1: nft list table inet probe');
    // Every packet the host sent got Cilium's "from host" bits; only the ClusterIP call's SYN got kube-proxy's.
    expect(probe.match(/0x00000c00 counter packets (\d+)/g)).toEqual([
      '0x00000c00 counter packets 6',
      '0x00000c00 counter packets 6',
    ]);
    expect(probe).toContain('meta mark & 0x00004000 == 0x00004000 counter packets 1 bytes 60');
    // The trace of that SYN: 0x4c00 through filter and mangle, KUBE-POSTROUTING's xor before its masquerade.
    const trace = output(run, 'w1: nft monitor trace');
    expect(trace).toContain('ip filter OUTPUT policy accept meta mark 0x00004c00');
    expect(trace).toContain(
      'ip nat KUBE-POSTROUTING rule counter packets 0 bytes 0 meta mark set mark xor 0x4000',
    );
    const { sim } = runPacketlab(ciliumNode('shapes-cilium-marks').build());
    const w1 = sim.namespace('w1');
    const marks: number[] = [];
    w1.byName('lxc3d4e5f')!.taps.push((_dev, pkt, dir) => {
      const frame = pkt.frame();
      if (dir === 'tx' && frame[12] === 0x08 && frame[13] === 0x00) marks.push(pkt.mark >>> 0);
    });
    sim.namespace('web').tcp.listen(0, 8000, () => {});
    expect(w1.tcp.connect({ dst: parseIpv4('10.96.40.12')!, dstPort: 80, srcPort: 41250 }).ok).toBe(true);
    sim.run(1e9);
    // The SYN leaves with 0xc00 alone: KUBE-POSTROUTING xored 0x4000 away before MASQUERADE.
    expect(marks[0]?.toString(16)).toBe('c00');
  });
});

describe("shapes: Cilium's L7 proxy redirection (TPROXY) with kube-proxy", () => {
  it("the pod's call to the ClusterIP is taken by the transparent proxy, out of conntrack and past kube-proxy", () => {
    const { sim } = runPacketlab(ciliumNode('shapes-cilium-tproxy').build());
    const w1 = sim.namespace('w1');
    const pod = sim.namespace('pod');
    // Stand-in for bpf_lxc, which marks a policy-redirected packet before the raw table sees it.
    must(
      w1,
      'iptables -t raw -I PREROUTING -i lxc+ -p tcp --dport 80 -j MARK --set-xmark 0x3a3c0200/0xffffffff',
    );
    // Cilium's own routing for the "to proxy" mark: rule 9 fwmark 0x200/0xf00 lookup 2004, local default dev lo.
    must(w1, 'ip rule add fwmark 0x200/0xf00 lookup 2004');
    must(w1, 'ip route add local 0.0.0.0/0 dev lo table 2004');
    const accepted: TcpSocket[] = [];
    w1.tcp.listen(0x7f00_0001, 15418, (socket) => accepted.push(socket), { transparent: true, mark: 0xa00 });
    const marksIn: number[] = [];
    w1.byName('lo')!.taps.push((_dev, pkt, dir) => {
      if (dir === 'rx') marksIn.push(pkt.mark >>> 0);
    });
    const web: string[] = [];
    sim.namespace('web').tcp.listen(0, 8000, (socket) => web.push(formatIpv4(socket.remoteAddr)));
    const call = pod.tcp.connect({ dst: parseIpv4('10.96.40.12')!, dstPort: 80, srcPort: 41260 });
    if (!call.ok) throw new Error('connect failed');
    sim.run(1e9);
    expect(call.socket.state).toBe('ESTABLISHED');
    expect(
      accepted.map((s) => `${formatIpv4(s.remoteAddr)} > ${formatIpv4(s.localAddr)}:${s.localPort}`),
    ).toEqual(['10.244.1.5 > 10.96.40.12:80']);
    expect(web).toEqual([]);
    const saved = exec(w1, 'iptables-save -c').stdout;
    expect(counter(saved, 'cilium: NOTRACK for proxy traffic')).toBe('2:112');
    expect(counter(saved, 'TPROXY to host cilium-http-ingress proxy')).toBe('1:60');
    expect(counter(saved, 'any->pod redirect proxied traffic to host proxy')).toBe('1:52');
    expect(counter(saved, 'cilium: ACCEPT for proxy traffic')).toBe('2:112');
    expect(counter(saved, '-o lxc+ -m mark --mark 0xa00/0xfffffeff')).toBe('1:60');
    expect(counter(saved, 'cilium: ACCEPT for proxy return traffic')).toBe('1:60');
    expect(counter(saved, '-A KUBE-SERVICES -d 10.96.40.12/32')).toBe('0:0');
    expect(exec(w1, 'conntrack -L').stdout).toBe('');
  });
});
