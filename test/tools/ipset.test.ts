// The ipset command on packetlab alone (test/linux/ipset.test.ts compares it with the kernel): restore stops at the
// first bad line and names it, -quiet, list:set last in a dump, and sets used by rules on virtual time (a SET target
// with --timeout, the set match on pings).

import { describe, expect, it } from 'vitest';
import { exec, execOrThrow } from '../../src/tools/exec.ts';
import { twoHosts } from '../support/two-hosts.ts';

describe('ipset', () => {
  it('restore applies lines until the first error, which it names by line', () => {
    const { a } = twoHosts('ipset-restore');
    const restored = exec(a, 'ipset restore', {
      stdin: '# sets\ncreate r1 hash:ip\nadd r1 1.1.1.1\n\nadd r1 1.1.1.1\nadd r1 2.2.2.2\n',
    });
    expect(restored.exitCode).toBe(1);
    expect(restored.stderr).toBe(
      "ipset v7.17: Error in line 5: Element cannot be added to the set: it's already added\n",
    );
    expect(execOrThrow(a, 'ipset save r1')).toMatch(
      /^create r1 hash:ip family inet .*\nadd r1 1\.1\.1\.1\n$/,
    );
    const usage = exec(a, 'ipset restore', { stdin: 'create r2 hash:ip\nbogus r2\n' });
    expect([usage.exitCode, usage.stderr]).toEqual([
      2,
      "ipset v7.17: No command specified: unknown argument bogus\nTry `ipset help' for more information.\n",
    ]);
    expect(execOrThrow(a, 'ipset list -n')).toBe('r1\nr2\n');
  });

  it('-quiet keeps errors and test answers silent, with the same exit codes', () => {
    const { a } = twoHosts('ipset-quiet');
    execOrThrow(a, 'ipset create s hash:net');
    expect(exec(a, 'ipset -q test s 10.0.0.1')).toEqual({ stdout: '', stderr: '', exitCode: 1 });
    expect(exec(a, 'ipset add s 10.0.0.0/8 -q')).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(exec(a, 'ipset test s 10.9.9.9').stderr).toBe('Warning: 10.9.9.9 is in set s.\n');
    expect(exec(a, 'ipset test s 192.0.2.1')).toEqual({
      stdout: '',
      stderr: '192.0.2.1 is NOT in set s.\n',
      exitCode: 1,
    });
  });

  it('a dump of every set lists list:set sets last, so that a restore finds their members', () => {
    const { a } = twoHosts('ipset-order');
    execOrThrow(a, 'ipset create list list:set');
    execOrThrow(a, 'ipset create member hash:ip');
    execOrThrow(a, 'ipset add list member');
    expect(execOrThrow(a, 'ipset list -n')).toBe('member\nlist\n');
    expect(execOrThrow(a, 'ipset list -t member')).toContain('References: 1\n');
  });

  it('a SET target with --timeout adds the sender for 2 s of virtual time; the set match then drops its pings', () => {
    const { sim, a, b } = twoHosts('ipset-rules');
    execOrThrow(b, 'ipset create seen hash:ip timeout 60');
    execOrThrow(b, 'ipset create banned hash:ip');
    execOrThrow(b, 'iptables -A INPUT -p icmp -j SET --add-set seen src --timeout 2');
    execOrThrow(b, 'iptables -A INPUT -m set --match-set banned src -j DROP');
    expect(exec(a, 'ping -c 1 10.0.0.2').stdout).toContain('1 received');
    expect(execOrThrow(b, 'ipset list seen')).toContain('Members:\n10.0.0.1 timeout 2\n');
    sim.run(3e9);
    expect(execOrThrow(b, 'ipset list seen')).toMatch(/Number of entries: 0\nMembers:\n$/);
    execOrThrow(b, 'ipset add banned 10.0.0.1');
    expect(exec(a, 'ping -c 1 -W 1 10.0.0.2').stdout).toContain('0 received');
    expect(execOrThrow(b, 'iptables-save -c')).toContain(
      '[1:84] -A INPUT -m set --match-set banned src -j DROP',
    );
    expect(exec(b, 'ipset destroy banned').stderr).toBe(
      'ipset v7.17: Set cannot be destroyed: it is in use by a kernel component\n',
    );
  });
});
