// Istio's sidecar rules (istio.ts) on packetlab: the harness scenario's outcome (which listener took each call, the
// chains' counters), then the proxy's own upstream call as uid 1337, which `-m owner` lets out to kube-proxy's
// DNAT on the node: the connection reaches the endpoint, and no component sets a mark bit on the way.

import { describe, expect, it } from 'vitest';
import type { Observed } from '../../src/harness/observed.ts';
import { runPacketlab } from '../../src/harness/packetlab-driver.ts';
import { exec } from '../../src/tools/exec.ts';
import { formatIpv4, parseIpv4 } from '../../src/wire/address.ts';
import { istioScenario } from './istio.ts';

function output(observed: Observed, labelStart: string): string {
  const found = [...observed.traffic, ...observed.observe].find((o) => o.label.startsWith(labelStart));
  if (found === undefined) throw new Error(`no output labelled ${labelStart}`);
  return `${found.stdout}${found.stderr}`;
}

describe('shapes: Istio sidecar redirection with kube-proxy', () => {
  const run = runPacketlab(istioScenario());

  it("the app's call to the ClusterIP lands on the sidecar's 15001, a call to the app on 15006", () => {
    const servers = run.traffic
      .filter((o) => o.label.includes('tcp echo'))
      .map((o) => o.stdout.split('\n')[0]);
    expect(servers).toEqual([
      'accept 10.244.1.5:41234',
      'accept 10.244.1.9:41235',
      'accept 10.244.1.9:41236',
    ]);
  });

  it('counts each ISTIO_* rule the three connections met, and kube-proxy never saw the redirected call', () => {
    const app = output(run, 'app: iptables-save');
    expect(app).toContain('[2:120] -A PREROUTING -p tcp -j ISTIO_INBOUND');
    expect(app).toContain('[1:60] -A ISTIO_INBOUND -p tcp -m tcp --dport 15021 -j RETURN');
    expect(app).toContain('[1:60] -A ISTIO_IN_REDIRECT -p tcp -j REDIRECT --to-ports 15006');
    expect(app).toContain('[1:60] -A ISTIO_REDIRECT -p tcp -j REDIRECT --to-ports 15001');
    expect(app).toContain('[0:0] -A ISTIO_OUTPUT -m owner --uid-owner 1337 -j RETURN');
    const w1 = output(run, 'w1: iptables-save');
    expect(w1).toContain('[0:0] -A KUBE-SERVICES -d 10.96.40.12/32');
  });
});

describe("shapes: the sidecar's own call (uid 1337) goes out to kube-proxy", () => {
  it('RETURNs in ISTIO_OUTPUT, is DNATed (bridge-level PREROUTING) on w1 to web:8000, and carries no mark bit', () => {
    const { sim } = runPacketlab(istioScenario('shapes-istio-proxy'));
    const app = sim.namespace('app');
    const web = sim.namespace('web');
    const w1 = sim.namespace('w1');
    const marks: number[] = [];
    w1.byName('veth-web')!.taps.push((_dev, pkt, dir) => {
      if (dir === 'tx') marks.push(pkt.mark);
    });
    const accepted: string[] = [];
    web.tcp.listen(0, 8000, (socket) => accepted.push(formatIpv4(socket.remoteAddr)));
    const sent = app.tcp.connect({
      dst: parseIpv4('10.96.40.12')!,
      dstPort: 80,
      srcPort: 41300,
      uid: 1337,
      gid: 1337,
    });
    expect(sent.ok).toBe(true);
    sim.run(1e9);
    expect(accepted).toEqual(['10.244.1.5']);
    const appNat = exec(app, 'iptables-save -c -t nat').stdout;
    expect(appNat).toContain('[1:60] -A ISTIO_OUTPUT -m owner --uid-owner 1337 -j RETURN');
    expect(appNat).toContain('[1:60] -A ISTIO_REDIRECT -p tcp -j REDIRECT --to-ports 15001');
    const w1Nat = exec(w1, 'iptables-save -c -t nat').stdout;
    expect(w1Nat).toContain(
      '[1:60] -A KUBE-SEP-7BXXKUVEJHAWGXQV -p tcp -m comment --comment "default/web:http" -m tcp -j DNAT',
    );
    expect(w1Nat).toContain('[0:0] -A KUBE-MARK-MASQ');
    // Neither Istio (REDIRECT mode) nor kube-proxy (a pod source) set a bit of the mark on the way to web.
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.every((mark) => mark === 0)).toBe(true);
  });
});
