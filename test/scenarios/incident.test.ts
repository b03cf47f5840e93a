// The incident, reproduced and fixed: NodePort traffic DNATed but not masqueraded once another component
// overwrites the mark, shown by `nft monitor trace`, and repaired by a rule that touches only its own bit.

import { describe, expect, it } from 'vitest';
import {
  applyWorkaround,
  buildIncident,
  connectToNodePort,
  installOffender,
} from '../../scenarios/incident.ts';

describe('the incident: a shared mark breaks MASQUERADE for NodePorts', () => {
  it('healthy: the pod on W2 sees W1 (masqueraded), and the client hears back from the NodePort it called', () => {
    const lesson = buildIncident();
    const run = connectToNodePort(lesson, 50000);
    expect(run.atPod).toMatch(/IP 10\.244\.1\.0\.\d+ > 10\.244\.2\.7\.8000: Flags \[S\]/);
    expect(run.atClient).toMatch(/IP 172\.18\.0\.2\.30080 > 172\.18\.0\.100\.50000: Flags \[S\.\]/);
    expect(run.connected).toBe(true);
    // The trace shows kube-proxy's bit being set, then tested and cleared before MASQUERADE.
    expect(run.trace).toMatch(
      /ip nat KUBE-MARK-MASQ rule .*meta mark set mark or 0x4000 \(verdict continue\)/,
    );
    expect(run.trace).toMatch(/ip nat KUBE-POSTROUTING rule .*masquerade fully-random \(verdict accept\)/);
  });

  it('broken: a mark written without a mask clears 0x4000; no MASQUERADE, and the pod answers the client directly', () => {
    const lesson = buildIncident();
    installOffender(lesson);
    const run = connectToNodePort(lesson, 50001);
    // DNATed, not masqueraded: the pod sees the outside client...
    expect(run.atPod).toMatch(/IP 172\.18\.0\.100\.50001 > 10\.244\.2\.7\.8000: Flags \[S\]/);
    // ...and answers it straight from W2, from an address the client never called: no socket there takes the
    // SYN-ACK, the client's SYNs go again a second apart (tcp_syn_linear_timeouts), and the NodePort "goes nowhere".
    expect(run.atClient).toMatch(/IP 10\.244\.2\.7\.8000 > 172\.18\.0\.100\.50001: Flags \[S\.\]/);
    expect(run.atClient).not.toMatch(/172\.18\.0\.2\.30080 > 172\.18\.0\.100/);
    expect(run.atClient.match(/172\.18\.0\.100\.50001 > 172\.18\.0\.2\.30080: Flags \[S\]/g)).toHaveLength(4);
    expect(run.connected).toBe(false);
    // The trace names the culprit: the mark at POSTROUTING is the other component's, and KUBE-POSTROUTING returns.
    expect(run.trace).toMatch(/inet netbird forward-mark rule meta mark set 0x00010000 \(verdict continue\)/);
    expect(run.trace).toMatch(
      /ip nat KUBE-POSTROUTING rule meta mark & 0x00004000 != 0x00004000 .*return \(verdict return\)/,
    );
    expect(run.trace).not.toMatch(/masquerade fully-random \(verdict accept\)/);
    // At POSTROUTING the forwarded packet still names the device it came in on, its Ethernet header decoded.
    expect(run.trace).toMatch(
      /ip nat POSTROUTING packet: iif "eth0" oif "flannel.1" ether saddr [0-9a-f:]+ ether daddr /,
    );
  });

  it('fixed: the component rewrites its rule to touch only its own bit, and masquerade is back', () => {
    const lesson = buildIncident();
    installOffender(lesson);
    applyWorkaround(lesson);
    const run = connectToNodePort(lesson, 50002);
    expect(run.atPod).toMatch(/IP 10\.244\.1\.0\.\d+ > 10\.244\.2\.7\.8000: Flags \[S\]/);
    expect(run.atClient).toMatch(/IP 172\.18\.0\.2\.30080 > 172\.18\.0\.100\.50002: Flags \[S\.\]/);
    expect(run.connected).toBe(true);
    expect(run.trace).toMatch(
      /inet netbird forward-mark rule meta mark set meta mark \| 0x00010000 \(verdict continue\)/,
    );
    expect(run.trace).toMatch(/masquerade fully-random \(verdict accept\)/);
  });
});
