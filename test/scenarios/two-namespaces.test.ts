import { describe, expect, it } from 'vitest';
import { runTwoNamespaces } from '../../scenarios/two-namespaces.ts';

describe('the scenario veth (packetlab run veth)', () => {
  it('pings across the veth pair and shows ARP, then two echo exchanges, one line per layer', () => {
    const { lines, frames } = runTwoNamespaces();
    expect(lines).toContain('2 packets transmitted, 2 received, 0% packet loss, time 1000ms');
    expect(frames.map((f) => `${f.direction} ${f.frame.length}`)).toEqual([
      'tx 42',
      'rx 42',
      'tx 98',
      'rx 98',
      'tx 98',
      'rx 98',
    ]);
    const layerLines = lines.filter((line) => line.startsWith('    '));
    expect(layerLines).toHaveLength(12);
    expect(layerLines[0]).toMatch(
      /^ {4}Ethernet [0-9a-f:]{17} > ff:ff:ff:ff:ff:ff, ethertype ARP \(0x0806\), length 42$/,
    );
    expect(layerLines[1]).toBe('    ARP, Request who-has 10.0.0.2 tell 10.0.0.1, length 28');
    expect(layerLines[5]).toMatch(
      /^ {4}IP 10\.0\.0\.1 > 10\.0\.0\.2: ICMP echo request, id \d+, seq 1, length 64$/,
    );
  });

  it('is the same twice for a seed, and differs for another seed', () => {
    expect(runTwoNamespaces('a').lines).toEqual(runTwoNamespaces('a').lines);
    expect(runTwoNamespaces('a').lines).not.toEqual(runTwoNamespaces('b').lines);
  });
});
