import { describe, expect, it } from 'vitest';
import { parseResolvConf, podResolvConf, writeResolvConf } from '../../../src/app/dns/resolv-conf.ts';
import { lookupHost } from '../../../src/app/dns/resolver.ts';
import { httpServer } from '../../../src/app/http/server.ts';
import { clusterDns } from '../../../src/k8s/dns/cluster-dns.ts';
import { kubeDnsService } from '../../../src/k8s/dns/kube-dns.ts';
import { exec } from '../../../src/tools/exec.ts';
import { parseIpv4 } from '../../../src/wire/address.ts';
import { DNS_TYPE_A, DNS_TYPE_AAAA, DnsView, parseDns } from '../../../src/wire/dns.ts';
import { hex, toHex } from '../../support/bytes.ts';
import { twoHosts } from '../../support/two-hosts.ts';
import { must, pod, port, service, slice, storeOf } from '../services-fixture.ts';

const QNAME = '0c7369676e616c656d656e7473 0764656661756c74 03737663 07636c7573746572 056c6f63616c 00';

/** Pod a (10.0.0.1) and CoreDNS on b (10.0.0.2:53) answering from a Store with the lesson's Service. */
function lab() {
  const hosts = twoHosts('cluster-dns');
  const store = storeOf(hosts.sim);
  must(
    store.create(
      service('signalements', { clusterIP: '10.96.40.12', ports: [port(80, 8000, { name: 'http' })] }),
    ),
  );
  const dns = clusterDns(hosts.b, store);
  const replies: Uint8Array[] = [];
  hosts.a.udp.bind(0, 40000, (d) => replies.push(d.payload.slice()));
  const ask = (query: Uint8Array): Uint8Array => {
    replies.length = 0;
    hosts.a.udp.send({ dst: parseIpv4('10.0.0.2')!, dstPort: 53, srcPort: 40000, payload: query });
    hosts.sim.run(1e9);
    expect(replies).toHaveLength(1);
    return replies[0]!;
  };
  const askName = (name: string, type: number) => {
    const labels = name.split('.').map((label) => {
      const bytes = new TextEncoder().encode(label);
      return [bytes.length.toString(16).padStart(2, '0'), toHex(bytes)].join('');
    });
    return parseDns(
      DnsView.checked(
        ask(
          hex(
            `1234 0100 0001 0000 0000 0000 ${labels.join(' ')} 00 ${type.toString(16).padStart(4, '0')} 0001`,
          ),
        ),
      ) as DnsView,
    );
  };
  return { ...hosts, store, dns, ask, askName };
}

describe('clusterDns (CoreDNS kubernetes plugin)', () => {
  it("answers a ClusterIP Service's A query byte for byte, as CoreDNS does (AA, no RA, TTL 30)", () => {
    const { ask, dns } = lab();
    expect(toHex(ask(hex(`bcf5 0100 0001 0000 0000 0000 ${QNAME} 0001 0001`)))).toBe(
      toHex(hex(`bcf5 8500 0001 0001 0000 0000 ${QNAME} 0001 0001 c00c 0001 0001 0000001e 0004 0a60280c`)),
    );
    expect(dns.stats).toMatchObject({ queries: 1, answers: 1 });
  });

  it('answers an unknown Service with NXDOMAIN and the cluster.local SOA (serial: the last change, in Unix seconds)', () => {
    const { ask } = lab();
    // nope.default.svc.cluster.local A
    const reply = ask(
      hex(
        '0001 0100 0001 0000 0000 0000 046e6f7065 0764656661756c74 03737663 07636c7573746572 056c6f63616c 00 0001 0001',
      ),
    );
    expect(toHex(reply)).toBe(
      toHex(
        hex(`0001 8503 0001 0000 0001 0000 046e6f7065 0764656661756c74 03737663 07636c7573746572 056c6f63616c 00 0001 0001
             c01d 0006 0001 0000001e 002a 026e73 03646e73 c01d 0a686f73746d6173746572 c01d
             6553f100 00001c20 00000708 00015180 0000001e`),
      ),
    );
  });

  it('AAAA of a v4 Service and the namespace name itself are NODATA with the SOA', () => {
    const { askName } = lab();
    const aaaa = askName('signalements.default.svc.cluster.local', DNS_TYPE_AAAA);
    expect([aaaa.rcode, aaaa.answers.length, aaaa.authorities[0]?.name]).toEqual([0, 0, 'cluster.local']);
    const namespace = askName('default.svc.cluster.local', DNS_TYPE_A);
    expect([namespace.rcode, namespace.answers.length, namespace.authorities.length]).toEqual([0, 0, 1]);
  });

  it('a headless Service answers its ready endpoints only, each also under its dashed name; none ready is NXDOMAIN', () => {
    const { askName, store } = lab();
    must(store.create(service('db', { clusterIP: 'None', ports: [port(5432, 5432)] })));
    const created = must(
      store.create(
        slice(
          'db',
          [
            { addr: '10.244.1.9', node: 'formation-worker' },
            { addr: '10.244.2.7', node: 'formation-worker2' },
            { addr: '10.244.2.8', node: 'formation-worker2', ready: false },
          ],
          [{ name: '', port: 5432, protocol: 'TCP' }],
        ),
      ),
    );
    const answer = askName('db.default.svc.cluster.local', DNS_TYPE_A);
    expect(answer.answers.map((r) => (r.data.kind === 'a' ? r.data.addr : 0))).toEqual([
      parseIpv4('10.244.1.9'),
      parseIpv4('10.244.2.7'),
    ]);
    expect(askName('10-244-2-7.db.default.svc.cluster.local', DNS_TYPE_A).answers).toHaveLength(1);
    must(
      store.update({
        ...created,
        endpoints: created.endpoints.map((e) => ({ ...e, conditions: { ...e.conditions, ready: false } })),
      }),
    );
    expect(askName('db.default.svc.cluster.local', DNS_TYPE_A).rcode).toBe(3);
  });

  it('pod names (pods insecure): a-b-c-d in an existing namespace answers that address; a bad one is NXDOMAIN', () => {
    const { askName, store } = lab();
    must(store.create(pod('diag', '10.244.1.5', 'formation-worker')));
    const answer = askName('10-244-1-5.default.pod.cluster.local', DNS_TYPE_A);
    expect(answer.answers.map((r) => r.data)).toEqual([{ kind: 'a', addr: parseIpv4('10.244.1.5') }]);
    expect(askName('10-244-1-300.default.pod.cluster.local', DNS_TYPE_A).rcode).toBe(3);
    expect(askName('10-244-1-5.nowhere.pod.cluster.local', DNS_TYPE_A).rcode).toBe(3);
  });

  it('SRV for a named port: priority 0, weight 100, the port and the Service name, its A record in additional', () => {
    const { askName } = lab();
    const answer = askName('_http._tcp.signalements.default.svc.cluster.local', 33);
    expect(answer.answers).toHaveLength(1);
    const data = answer.answers[0]!.data;
    expect(data.kind === 'raw' ? toHex(data.bytes) : '').toBe(toHex(hex(`0000 0064 0050 ${QNAME}`)));
    expect(answer.additionals.map((r) => [r.name, r.type])).toEqual([
      ['signalements.default.svc.cluster.local', 1],
    ]);
  });

  it('a name outside the zone is SERVFAIL, not authoritative (no upstream to forward to)', () => {
    const { askName, dns } = lab();
    const answer = askName('example.com', DNS_TYPE_A);
    expect([answer.rcode, answer.authoritative, answer.recursionAvailable]).toEqual([2, false, false]);
    expect(dns.stats.servfail).toBe(1);
  });

  it('follows the Store: a Service created later answers, a deleted one is NXDOMAIN, the serial moves', () => {
    const { askName, store, sim } = lab();
    sim.run(5e9);
    must(store.create(service('web', { clusterIP: '10.96.7.7', ports: [port(80, 80)] })));
    expect(askName('web.default.svc.cluster.local', DNS_TYPE_A).answers).toHaveLength(1);
    must(store.delete('Service', 'default', 'web'));
    const gone = askName('web.default.svc.cluster.local', DNS_TYPE_A);
    expect(gone.rcode).toBe(3);
    const soa = gone.authorities[0]!.data;
    expect(soa.kind === 'soa' ? soa.serial : 0).toBe(1_700_000_006);
  });
});

describe("a pod's resolv.conf and glibc's search list", () => {
  it('containerd writes search, nameserver, options', () => {
    expect(podResolvConf('default')).toBe(
      'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n',
    );
  });

  it("merges the pod's dnsConfig options after ndots:5, the pod's value winning, and glibc reads them", () => {
    const text = podResolvConf('default', {
      dnsOptions: [
        { name: 'single-request-reopen' },
        { name: 'ndots', value: '2' },
        { name: 'timeout', value: '1' },
      ],
    });
    expect(text.split('\n')[2]).toBe('options ndots:2 single-request-reopen timeout:1');
    expect(parseResolvConf(text)).toMatchObject({ ndots: 2, timeout: 1, singleRequestReopen: true });
    expect(parseResolvConf(podResolvConf('default'))).toMatchObject({ singleRequestReopen: false });
  });

  it('curl counts the name lookup in time_namelookup and every later time: a lost AAAA costs 5 s', () => {
    const { a, b } = lab();
    writeResolvConf(a, podResolvConf('default', { nameserver: '10.0.0.2' }));
    httpServer(b, { port: 80, routes: { '/sante': { body: 'ok\n' } } });
    exec(a, 'ip route add default via 10.0.0.2');
    exec(
      a,
      'iptables -t nat -A OUTPUT -d 10.96.40.12 -p tcp --dport 80 -j DNAT --to-destination 10.0.0.2:80',
    );
    // The first AAAA query dies on b, as the loser of an insert race dies at POSTROUTING.
    exec(b, 'nft add table inet lossy');
    exec(b, "nft add chain inet lossy input '{ type filter hook input priority 0; }'");
    exec(b, 'nft add rule inet lossy input udp dport 53 numgen inc mod 100 == 1 drop');
    const result = exec(
      a,
      'curl -s -w "%{time_namelookup} %{time_connect} %{time_total}" http://signalements/sante',
    );
    expect(result.stdout).toBe('ok\n5.000000 5.000000 5.000000');
    expect(exec(a, 'curl -s -w "%{time_namelookup}" http://10.96.40.12/sante').stdout).toBe('ok\n0.000000');
  });

  it('curl http://signalements/sante from the pod: one A+AAAA pair for the first search domain, then the Service', () => {
    const { a, b, dns } = lab();
    // The pod's own file (nameserver 10.96.0.10, the kube-dns ClusterIP), DNATed by hand to CoreDNS on b.
    writeResolvConf(a, podResolvConf('default'));
    httpServer(b, { port: 80, routes: { '/sante': { body: 'ok\n' } } });
    exec(a, 'iptables -t nat -A OUTPUT -d 10.96.0.10 -p udp --dport 53 -j DNAT --to-destination 10.0.0.2:53');
    // the Service's ClusterIP, DNATed by hand to b's server (kube-proxy's part, not this test's)
    exec(a, 'ip route add default via 10.0.0.2');
    exec(
      a,
      'iptables -t nat -A OUTPUT -d 10.96.40.12 -p tcp --dport 80 -j DNAT --to-destination 10.0.0.2:80',
    );
    const result = exec(a, 'curl -s -w " %{remote_ip} %{time_total}" http://signalements/sante');
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('ok\n 10.96.40.12 0.000000');
    expect(dns.stats).toMatchObject({ queries: 2, answers: 1, nodata: 1 });
  });

  it('a name with a dot still goes through the search list first (ndots 5); an outside name ends as is', () => {
    const { a, sim } = lab();
    writeResolvConf(a, podResolvConf('default', { nameserver: '10.0.0.2' }));
    const options = {
      nameserver: '10.0.0.2',
      search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      ndots: 5,
    };
    const lookup = lookupHost(a, 'signalements.default.svc', options);
    sim.run(1e9);
    expect(lookup.result).toEqual({ ok: true, addresses: ['10.96.40.12'] });
    expect(lookup.sent.map((q) => `${q.type === DNS_TYPE_A ? 'A' : 'AAAA'} ${q.name}`)).toEqual([
      'A signalements.default.svc.default.svc.cluster.local',
      'AAAA signalements.default.svc.default.svc.cluster.local',
      'A signalements.default.svc.svc.cluster.local',
      'AAAA signalements.default.svc.svc.cluster.local',
      'A signalements.default.svc.cluster.local',
      'AAAA signalements.default.svc.cluster.local',
    ]);
  });

  it('curl without a resolv.conf cannot resolve a bare name (exit 6)', () => {
    const { a } = lab();
    const result = exec(a, 'curl -sS http://signalements/sante');
    expect([result.exitCode, result.stderr]).toEqual([6, 'curl: (6) Could not resolve host: signalements\n']);
  });
});

describe('the kube-dns Service', () => {
  it('kubeadm’s: 10.96.0.10 with dns/UDP, dns-tcp/TCP and metrics; CoreDNS answers its own name and SRV', () => {
    const { store, askName } = lab();
    must(store.create(kubeDnsService()));
    const a = askName('kube-dns.kube-system.svc.cluster.local', DNS_TYPE_A);
    expect(a.answers.map((r) => r.data)).toEqual([{ kind: 'a', addr: parseIpv4('10.96.0.10') }]);
    const srv = askName('_dns._udp.kube-dns.kube-system.svc.cluster.local', 33);
    const data = srv.answers[0]?.data;
    expect(data?.kind === 'raw' ? [data.bytes[4], data.bytes[5]] : []).toEqual([0, 53]);
  });
});

describe('reverse lookups (in-addr.arpa with fallthrough)', () => {
  it("a ClusterIP's PTR names its Service; an unknown address falls through to SERVFAIL", () => {
    const { askName } = lab();
    const ptr = askName('12.40.96.10.in-addr.arpa', 12);
    expect([ptr.rcode, ptr.authoritative, ptr.answers.map((r) => r.data)]).toEqual([
      0,
      true,
      [{ kind: 'name', name: 'signalements.default.svc.cluster.local' }],
    ]);
    expect(askName('9.1.244.10.in-addr.arpa', 12).rcode).toBe(2);
  });
});
