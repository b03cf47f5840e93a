// Sysctls share their keys' specs and defaults between namespaces (one schema per define sequence): what one
// namespace writes, defines or removes never shows in another, and per-device keys follow their devices.

import { describe, expect, it } from 'vitest';
import { Sysctls } from '../../src/net/sysctl.ts';

describe('sysctls shared between namespaces', () => {
  it('keeps each namespace its own values over the shared defaults', () => {
    const a = new Sysctls();
    const b = new Sysctls();
    expect(a.set('net.ipv4.ip_forward', '1')).toEqual({ ok: true, value: '1' });
    expect(a.int('net.ipv4.ip_forward')).toBe(1);
    expect(b.int('net.ipv4.ip_forward')).toBe(0);
    expect(a.get('net.ipv4.conf.all.forwarding')).toEqual({ ok: true, value: '1' });
    expect(b.get('net.ipv4.conf.all.forwarding')).toEqual({ ok: true, value: '0' });
    expect(a.keys()).toEqual(b.keys());
  });

  it('defines a key in one namespace only, and a redefinition resets its value', () => {
    const a = new Sysctls();
    const b = new Sysctls();
    a.define('net.example.knob', { defaultValue: '5', min: 0, max: 9 });
    expect(a.int('net.example.knob')).toBe(5);
    expect(b.has('net.example.knob')).toBe(false);
    expect(a.set('net.example.knob', '7').ok).toBe(true);
    b.define('net.example.knob', { defaultValue: '5', min: 0, max: 9 });
    expect(b.int('net.example.knob')).toBe(5);
    a.define('net.example.knob', { defaultValue: '3', min: 0, max: 9 });
    expect(a.int('net.example.knob')).toBe(3);
    expect(b.int('net.example.knob')).toBe(5);
  });

  it('gives a new device the defaults of conf.default as they are then, and forgets them when it goes', () => {
    const a = new Sysctls();
    expect(a.set('net.ipv4.conf.default.rp_filter', '2').ok).toBe(true);
    a.addDevice('eth0.100');
    expect(a.int(a.confKey('eth0.100', 'rp_filter'))).toBe(2);
    expect(a.set('net.ipv4.neigh.eth0.100.ucast_solicit', '7').ok).toBe(true);
    expect(a.neigh('eth0.100', 'ucast_solicit')).toBe(7);
    expect(a.keys('net.ipv4.neigh.')).toHaveLength(7);
    a.removeDevice('eth0.100');
    expect(a.has('net.ipv4.conf.eth0.100.rp_filter')).toBe(false);
    expect(a.get('net.ipv4.neigh.eth0.100.ucast_solicit')).toEqual({ ok: false, error: 'ENOENT' });
    a.addDevice('eth0.100');
    expect(a.neigh('eth0.100', 'ucast_solicit')).toBe(3);
    expect(new Sysctls().keys('net.ipv4.conf.')).toHaveLength(16);
  });
});
