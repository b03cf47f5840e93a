// UDP's bind(addr, 0) (udp_lib_get_port) on a fixed seed: a random first port in ip_local_port_range, the rest of
// its hash slot and the next slots when it is taken, reserved ports skipped, EADDRINUSE when the range is full.

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';

function namespace(range?: string) {
  const sim = new Simulation({ seed: 'udp-ports' });
  const ns = sim.addNamespace('a');
  if (range !== undefined) exec(ns, `sysctl -w net.ipv4.ip_local_port_range="${range}"`);
  return ns;
}

describe('UDP autobind', () => {
  it('draws a port anywhere in ip_local_port_range, either parity', () => {
    const ns = namespace();
    const ports = Array.from({ length: 6 }, () => ns.udp.autobind(0, () => {}));
    expect(ports).toEqual([55578, 39194, 57107, 40499, 36190, 40375]);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(32768);
      expect(port).toBeLessThanOrEqual(60999);
    }
  });

  it('fills a small range, then fails with EADDRINUSE; an address of its own does not help against 0.0.0.0', () => {
    const ns = namespace('40000 40003');
    const ports = Array.from({ length: 5 }, () => ns.udp.autobind(0, () => {}));
    expect(ports.slice(0, 4).sort()).toEqual([40000, 40001, 40002, 40003]);
    expect(ports[4]).toBe('EADDRINUSE');
    expect(ns.udp.autobind(parseIpv4('10.0.0.1')!, () => {})).toBe('EADDRINUSE');
    ns.udp.unbind(0, 40002);
    expect(ns.udp.autobind(0, () => {})).toBe(40002);
  });

  it('skips ip_local_reserved_ports', () => {
    const ns = namespace('40000 40003');
    exec(ns, 'sysctl -w net.ipv4.ip_local_reserved_ports=40000,40002-40003');
    expect([ns.udp.autobind(0, () => {}), ns.udp.autobind(0, () => {})]).toEqual([40001, 'EADDRINUSE']);
  });
});
