// The iptables proxier's rules for the cases TestOverallIPTablesRules does not cover: what NewProxier computes
// (the mark as Go's %#08x, probabilities as Go's %0.10f — values printed by Go 1.x on this machine), internal
// traffic policy Local, terminating endpoints as a fallback, large-cluster mode, UDP and unnamed ports, and the
// commands of the first sync.

import { describe, expect, it } from 'vitest';
import { firstSyncCommands, IptablesProxier } from '../../../../src/k8s/kube-proxy/iptables/proxier.ts';
import { masqueradeMarkOf, probability } from '../../../../src/k8s/kube-proxy/iptables/ruleset.ts';
import { endpoint, makeEndpointSlice, makeService, servicePort } from '../../../support/k8s-objects.ts';
import { fakeProxier, fakeView, TEST_NODE_NAME } from './fake.ts';

const p80 = [{ name: 'p80', port: 80, protocol: 'TCP' as const }];

function clusterIP(edit: (svc: Parameters<Parameters<typeof makeService>[2]>[0]) => void = () => {}) {
  return makeService('ns1', 'svc1', (svc) => {
    svc.clusterIP = '172.30.1.1';
    svc.ports = [servicePort({ name: 'p80', port: 80 })];
    edit(svc);
  });
}

function lines(text: string, pattern: RegExp): string[] {
  return text.split('\n').filter((line) => pattern.test(line));
}

describe('what NewProxier computes, as Go prints it', () => {
  it('writes the mark of bit 14 as fmt.Sprintf("%#08x") does', () => {
    expect(masqueradeMarkOf(14)).toBe('0x00004000');
  });

  it('writes 1/n with ten decimals, ties to even as Go does', () => {
    expect(probability(2)).toBe('0.5000000000');
    expect(probability(3)).toBe('0.3333333333');
    expect(probability(7)).toBe('0.1428571429');
    expect(probability(1000)).toBe('0.0010000000');
    expect(probability(2048)).toBe('0.0004882812');
    expect(probability(4096)).toBe('0.0002441406');
  });
});

describe('the ruleset of a kind node (kube-proxy v1.31, iptables 1.8.9)', () => {
  const view = fakeView(
    [clusterIP()],
    [
      makeEndpointSlice(
        'ns1',
        'svc1',
        1,
        [endpoint('10.180.0.1'), endpoint('10.180.0.2'), endpoint('10.180.0.3')],
        p80,
      ),
    ],
  );
  const text = new IptablesProxier().render(view);

  it('masquerades with --random-fully and the mark as NewProxier formats it', () => {
    expect(text).toContain(
      '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
    );
    expect(text).toContain('-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000');
    expect(text).toContain('-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP');
    expect(text).not.toContain('nfacct');
  });

  it('spreads three endpoints with 1/3, 1/2 and a last unconditional rule, in ip:port order', () => {
    expect(lines(text, /^-A KUBE-SVC-.* -> /).map((l) => l.replace(/ -j KUBE-SEP-\w+$/, ''))).toEqual([
      '-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m statistic --mode random --probability 0.3333333333',
      '-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.2:80" -m statistic --mode random --probability 0.5000000000',
      '-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.3:80"',
    ]);
  });
});

describe('traffic policies and endpoint conditions', () => {
  it('internalTrafficPolicy Local without a local endpoint drops ClusterIP traffic in filter', () => {
    const svc = clusterIP((s) => {
      s.internalTrafficPolicy = 'Local';
    });
    const slice = makeEndpointSlice('ns1', 'svc1', 1, [endpoint('10.180.0.1', { nodeName: 'node2' })], p80);
    const text = fakeProxier().render(fakeView([svc], [slice]));
    expect(text).toContain(
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 has no local endpoints" -m tcp -p tcp -d 172.30.1.1 --dport 80 -j DROP',
    );
    expect(lines(text, /KUBE-SVC-|KUBE-SVL-|KUBE-SEP-/)).toEqual([]);
  });

  it('internalTrafficPolicy Local with a local endpoint sends ClusterIP traffic to KUBE-SVL- only', () => {
    const svc = clusterIP((s) => {
      s.internalTrafficPolicy = 'Local';
    });
    const slice = makeEndpointSlice(
      'ns1',
      'svc1',
      1,
      [endpoint('10.180.0.1', { nodeName: TEST_NODE_NAME }), endpoint('10.180.0.2', { nodeName: 'node2' })],
      p80,
    );
    const text = fakeProxier().render(fakeView([svc], [slice]));
    expect(lines(text, /^-A KUBE-SERVICES .*cluster IP/)).toEqual([
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.1.1 --dport 80 -j KUBE-SVL-XPGD46QRK7WJZT7O',
    ]);
    expect(lines(text, /^:KUBE-(SVC|SVL|SEP)-/)).toHaveLength(2);
    expect(text).not.toContain('10.180.0.2');
  });

  it('uses serving terminating endpoints when none is ready, and ignores those that do not serve', () => {
    const slice = makeEndpointSlice(
      'ns1',
      'svc1',
      1,
      [
        endpoint('10.180.0.1', { ready: false, serving: true, terminating: true }),
        endpoint('10.180.0.2', { ready: false, serving: false, terminating: true }),
      ],
      p80,
    );
    const text = fakeProxier().render(fakeView([clusterIP()], [slice]));
    expect(lines(text, /-j DNAT/)).toEqual([
      '-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80',
    ]);
  });

  it('rejects when no endpoint is ready or serving-and-terminating', () => {
    const slice = makeEndpointSlice(
      'ns1',
      'svc1',
      1,
      [endpoint('10.180.0.1', { ready: false, serving: false })],
      p80,
    );
    const text = fakeProxier().render(fakeView([clusterIP()], [slice]));
    expect(text).toContain(
      '"ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 172.30.1.1 --dport 80 -j REJECT',
    );
  });

  it('drops the per-endpoint comments above 1000 endpoints (largeClusterMode)', () => {
    const endpoints = Array.from({ length: 1001 }, (_, i) => endpoint(`10.1.${i >> 8}.${i & 255}`));
    const text = fakeProxier().render(
      fakeView([clusterIP()], [makeEndpointSlice('ns1', 'svc1', 1, endpoints, p80)]),
    );
    const dnat = lines(text, /-j DNAT/);
    expect(dnat).toHaveLength(1001);
    expect(dnat[0]).toMatch(/^-A KUBE-SEP-\w+ -m tcp -p tcp -j DNAT --to-destination 10\.1\.0\.0:80$/);
    // The service's own rules keep theirs.
    expect(text).toContain('"ns1/svc1:p80 cluster IP"');
  });

  it('names an unnamed port namespace/name and keeps UDP and TCP ports of the same number apart', () => {
    const svc = makeService('ns1', 'dns', (s) => {
      s.clusterIP = '172.30.0.10';
      s.ports = [servicePort({ name: '', port: 53, protocol: 'UDP' })];
    });
    const slice = makeEndpointSlice(
      'ns1',
      'dns',
      1,
      [endpoint('10.180.0.9')],
      [
        { name: '', port: 53, protocol: 'UDP' },
        { name: '', port: 5353, protocol: 'TCP' },
      ],
    );
    const text = fakeProxier().render(fakeView([svc], [slice]));
    expect(text).toContain(
      '-m comment --comment "ns1/dns cluster IP" -m udp -p udp -d 172.30.0.10 --dport 53',
    );
    expect(lines(text, /-j DNAT/)).toEqual([
      expect.stringMatching(
        /-m comment --comment ns1\/dns -m udp -p udp -j DNAT --to-destination 10\.180\.0\.9:53$/,
      ),
    ]);
  });
});

describe('the first sync', () => {
  it('creates the canaries, then each chain once and its jumps with -I, KUBE-FIREWALL last', () => {
    const commands = firstSyncCommands('w1').map((c) => c.argv.join(' '));
    expect(commands.slice(0, 3)).toEqual([
      'iptables -w 5 -W 100000 -N KUBE-PROXY-CANARY -t mangle',
      'iptables -w 5 -W 100000 -N KUBE-PROXY-CANARY -t nat',
      'iptables -w 5 -W 100000 -N KUBE-PROXY-CANARY -t filter',
    ]);
    expect(commands.filter((c) => c.includes(' -N '))).toHaveLength(3 + 8);
    expect(commands.filter((c) => c.includes(' -I '))).toHaveLength(14);
    expect(commands.at(-1)).toBe('iptables -w 5 -W 100000 -I OUTPUT -t filter -j KUBE-FIREWALL');
    const sync = new IptablesProxier().sync('w1', fakeView([], []), false);
    expect(sync.map((c) => c.argv.join(' '))).toEqual([
      'iptables-restore -w 5 -W 100000 --noflush --counters',
    ]);
  });
});

describe('resyncs', () => {
  it('flushes and deletes the service chains the previous sync kept and this one does not, before the tail rule', () => {
    const proxier = fakeProxier();
    const slice = makeEndpointSlice('ns1', 'svc1', 1, [endpoint('10.180.0.1')], p80);
    proxier.sync('n', fakeView([clusterIP()], [slice]), true);
    const again = proxier.sync('n', fakeView([clusterIP()], [slice]), false);
    expect(again[0]!.stdin).not.toMatch(/^-X /m);
    const [restore] = proxier.sync('n', fakeView([clusterIP()], []), false);
    const text = restore!.stdin!;
    expect(lines(text, /^-X /)).toEqual(['-X KUBE-SEP-SXIVWICOYRO3J4NJ', '-X KUBE-SVC-XPGD46QRK7WJZT7O']);
    expect(text).toContain(':KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]');
    const nat = text.slice(text.indexOf('*nat')).split('\n');
    expect(nat.indexOf('-X KUBE-SVC-XPGD46QRK7WJZT7O')).toBeLessThan(
      nat.findIndex((l) => l.includes('must be the last rule')),
    );
    // A first sync knows of no chains.
    expect(proxier.sync('n', fakeView([clusterIP()], []), true).at(-1)!.stdin).not.toMatch(/^-X /m);
  });
});
