// kube-proxy's chain names against the names its own tests expect (pkg/proxy/iptables/proxier_test.go).

import { describe, expect, it } from 'vitest';
import {
  base32,
  hashPrefix,
  servicePortChainName,
  servicePortEndpointChainName,
  servicePortName,
} from '../../../src/k8s/kube-proxy/names.ts';

describe('kube-proxy chain names', () => {
  it('encodes base32 as RFC 4648 test vectors do (padding dropped)', () => {
    const enc = new TextEncoder();
    expect(base32(enc.encode(''))).toBe('');
    expect(base32(enc.encode('f'))).toBe('MY');
    expect(base32(enc.encode('fo'))).toBe('MZXQ');
    expect(base32(enc.encode('foo'))).toBe('MZXW6');
    expect(base32(enc.encode('foob'))).toBe('MZXW6YQ');
    expect(base32(enc.encode('fooba'))).toBe('MZXW6YTB');
    expect(base32(enc.encode('foobar'))).toBe('MZXW6YTBOI');
  });

  it('hashes SHA-256 then base32 (sha256("abc") = ba7816bf...)', () => {
    // base32 of ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    expect(hashPrefix('abc', 16)).toBe('XJ4BNP4PAHH6UQKB');
  });

  it('names the service-port chains as TestOverallIPTablesRules expects', () => {
    expect(servicePortChainName('KUBE-SVC-', 'ns1/svc1:p80', 'tcp')).toBe('KUBE-SVC-XPGD46QRK7WJZT7O');
    expect(servicePortChainName('KUBE-SVC-', 'ns2/svc2:p80', 'tcp')).toBe('KUBE-SVC-GNZBNJ2PO5MGZ6GT');
    expect(servicePortChainName('KUBE-EXT-', 'ns2/svc2:p80', 'tcp')).toBe('KUBE-EXT-GNZBNJ2PO5MGZ6GT');
    expect(servicePortChainName('KUBE-SVL-', 'ns2/svc2:p80', 'tcp')).toBe('KUBE-SVL-GNZBNJ2PO5MGZ6GT');
    expect(servicePortChainName('KUBE-FW-', 'ns5/svc5:p80', 'tcp')).toBe('KUBE-FW-NUKIZ6OKUXPJNT4C');
    expect(servicePortChainName('KUBE-SVC-', 'ns4/svc4:p80', 'tcp')).toBe('KUBE-SVC-4SW47YFZTEDKD3PK');
  });

  it('names the endpoint chains as TestOverallIPTablesRules expects', () => {
    expect(servicePortEndpointChainName('ns1/svc1:p80', 'tcp', '10.180.0.1:80')).toBe(
      'KUBE-SEP-SXIVWICOYRO3J4NJ',
    );
    expect(servicePortEndpointChainName('ns4/svc4:p80', 'tcp', '10.180.0.4:80')).toBe(
      'KUBE-SEP-UKSFD7AGPMPPLUHC',
    );
    expect(servicePortEndpointChainName('ns4/svc4:p80', 'tcp', '10.180.0.5:80')).toBe(
      'KUBE-SEP-C6EBXVWJJZMIWKLZ',
    );
  });

  it('writes a ServicePortName as namespace/name:port, dropping an unnamed port', () => {
    expect(servicePortName('default', 'signalements', 'http')).toBe('default/signalements:http');
    expect(servicePortName('default', 'kubernetes', '')).toBe('default/kubernetes');
  });
});
