// Service admission through the ControlPlane: defaults, allocation, and every refusal with the API server's text.
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { Scheduler } from '../../../src/core/scheduler.ts';
import { type ServiceInput, service } from '../../../src/k8s/api/builders.ts';
import { ControlPlane } from '../../../src/k8s/controllers/control-plane.ts';
import type { Service } from '../../../src/k8s/objects.ts';
import { kubectlError, Store } from '../../../src/k8s/store.ts';

function setup() {
  const scheduler = new Scheduler();
  const rng = new Rng('service-test');
  const store = new Store(rng.fork('store'), () => scheduler.now);
  const plane = new ControlPlane(store, scheduler, rng.fork('control-plane'));
  const create = (input: ServiceInput) => store.create(service(input));
  /** The refusal's Status.message; fails the test when the object was admitted. */
  const refusal = (result: ReturnType<typeof create>) => {
    if (result.ok) throw new Error(`admitted ${result.value.metadata.name}`);
    return result.error.message;
  };
  return { scheduler, store, plane, create, refusal };
}

const signalements: ServiceInput = {
  name: 'signalements',
  type: 'NodePort',
  clusterIP: '10.96.40.12',
  ports: [{ port: 80, targetPort: 8000, nodePort: 30080 }],
  selector: { app: 'signalements' },
};

describe('Service admission', () => {
  it('defaults as the API server does and keeps pinned addresses', () => {
    const { create } = setup();
    const created = create(signalements);
    if (!created.ok) throw new Error(created.error.message);
    expect(created.value.spec).toEqual({
      type: 'NodePort',
      clusterIP: '10.96.40.12',
      ports: [{ name: '', protocol: 'TCP', port: 80, targetPort: 8000, nodePort: 30080 }],
      selector: { app: 'signalements' },
      sessionAffinity: 'None',
      sessionAffinityTimeoutSeconds: 10800,
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      healthCheckNodePort: 0,
      externalIPs: [],
      loadBalancerSourceRanges: [],
    } satisfies Service['spec']);
    const plain = create({ name: 'web', ports: [{ port: 8080 }], selector: { app: 'web' } });
    if (!plain.ok) throw new Error(plain.error.message);
    expect(plain.value.spec.ports[0]).toEqual({
      name: '',
      protocol: 'TCP',
      port: 8080,
      targetPort: 8080,
      nodePort: 0,
    });
    expect(plain.value.spec.clusterIP).toMatch(/^10\.(9[6-9]|10\d|11[01])\./);
  });

  it('allocates NodePorts and a healthCheckNodePort for LoadBalancer + Local; ports of one number share one', () => {
    const { create, plane } = setup();
    const lb = create({
      name: 'dns-lb',
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      ],
      selector: { app: 'dns' },
    });
    if (!lb.ok) throw new Error(lb.error.message);
    const [udp, tcp] = lb.value.spec.ports;
    expect(udp!.nodePort).toBe(tcp!.nodePort);
    expect(udp!.nodePort).toBeGreaterThanOrEqual(30086);
    expect(lb.value.spec.healthCheckNodePort).toBeGreaterThanOrEqual(30000);
    expect(lb.value.spec.healthCheckNodePort).not.toBe(udp!.nodePort);
    expect(plane.nodePorts.used).toBe(2);
  });

  it('refuses a taken nodePort, reserving nothing (kubectl wording)', () => {
    const { create, refusal, plane } = setup();
    expect(create(signalements).ok).toBe(true);
    const again = create({ ...signalements, name: 'signalements-bis', clusterIP: '10.96.40.13' });
    if (again.ok) throw new Error('admitted');
    expect(kubectlError(again.error)).toBe(
      'The Service "signalements-bis" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated\n',
    );
    // The ClusterIP it took before the nodePort failed was given back.
    expect(plane.clusterIps.has('10.96.40.13')).toBe(false);
    expect(
      refusal(create({ ...signalements, name: 'out', clusterIP: '', ports: [{ port: 80, nodePort: 8080 }] })),
    ).toBe(
      'Service "out" is invalid: spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    expect(plane.clusterIps.used).toBe(1);
  });

  it('refuses a taken or out-of-range clusterIP, and an invalid one', () => {
    const { create, refusal } = setup();
    expect(create(signalements).ok).toBe(true);
    expect(refusal(create({ ...signalements, name: 'twin', type: 'ClusterIP', ports: [{ port: 80 }] }))).toBe(
      'Service "twin" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.40.12"}: failed to allocate IP 10.96.40.12: provided IP is already allocated',
    );
    expect(refusal(create({ name: 'far', clusterIP: '10.0.0.1', ports: [{ port: 80 }] }))).toBe(
      'Service "far" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.1"}: failed to allocate IP 10.0.0.1: the provided IP (10.0.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    );
    expect(refusal(create({ name: 'bad', clusterIP: '10.96.0.300', ports: [{ port: 80 }] }))).toBe(
      'Service "bad" is invalid: spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    );
  });

  it('validates names, ports, protocols, types and policies with validation.go wording', () => {
    const { create, refusal, plane } = setup();
    expect(refusal(create({ name: 'Signalements', ports: [{ port: 80 }] }))).toBe(
      "Service \"Signalements\" is invalid: metadata.name: Invalid value: \"Signalements\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
    expect(refusal(create({ name: 'noports', ports: [] }))).toBe(
      'Service "noports" is invalid: spec.ports: Required value',
    );
    expect(
      refusal(
        create({
          name: 'many',
          ports: [{ port: 80 }, { name: 'http', port: 0, targetPort: 'http_x' }, { name: 'http', port: 80 }],
        }),
      ),
    ).toBe(
      'Service "many" is invalid: [spec.ports[0].name: Required value, spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[1].targetPort: Invalid value: "http_x": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), spec.ports[2].name: Duplicate value: "http", spec.ports[2]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}]',
    );
    expect(refusal(create({ name: 'icmp', ports: [{ port: 80, protocol: 'ICMP' as never }] }))).toBe(
      'Service "icmp" is invalid: spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    );
    expect(refusal(create({ name: 'ext', type: 'ExternalName' as never, ports: [{ port: 80 }] }))).toBe(
      'Service "ext" is invalid: spec.type: Unsupported value: "ExternalName": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    );
    expect(refusal(create({ name: 'np', ports: [{ port: 80, nodePort: 30001 }] }))).toBe(
      'Service "np" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is \'ClusterIP\'',
    );
    expect(refusal(create({ name: 'local', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] }))).toBe(
      'Service "local" is invalid: spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
    );
    expect(
      refusal(
        create({
          name: 'sticky',
          sessionAffinity: 'ClientIP',
          sessionAffinityTimeoutSeconds: 0,
          ports: [{ port: 80 }],
        }),
      ),
    ).toBe(
      'Service "sticky" is invalid: spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400',
    );
    expect(
      refusal(
        create({
          name: 'dup',
          type: 'NodePort',
          ports: [
            { name: 'a', port: 80, nodePort: 30001 },
            { name: 'b', port: 81, nodePort: 30001 },
          ],
        }),
      ),
      // Allocation runs before validation (BeginCreate), so the second use of 30001 fails to allocate before the
      // duplicate check could see it.
    ).toBe(
      'Service "dup" is invalid: spec.ports[1].nodePort: Invalid value: 30001: provided port is already allocated',
    );
    // None of the refused Services kept an address or a port.
    expect(plane.clusterIps.used).toBe(0);
    expect(plane.nodePorts.used).toBe(0);
  });

  it('keeps allocated values on update, refuses a changed clusterIP, and releases on delete', () => {
    const { store, create, plane } = setup();
    const created = create(signalements);
    if (!created.ok) throw new Error(created.error.message);
    const stored = created.value;
    // An update without clusterIP and nodePort keeps them (patchAllocatedValues).
    const kept = store.update<'Service'>({
      ...stored,
      spec: { ...stored.spec, clusterIP: '', ports: [{ ...stored.spec.ports[0]!, nodePort: 0 }] },
    });
    expect(kept.ok && [kept.value.spec.clusterIP, kept.value.spec.ports[0]!.nodePort]).toEqual([
      '10.96.40.12',
      30080,
    ]);
    const moved = store.update<'Service'>({ ...stored, spec: { ...stored.spec, clusterIP: '10.96.40.99' } });
    expect(!moved.ok && moved.error.message).toBe(
      'Service "signalements" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.40.99"}: may not change once set',
    );
    expect(plane.clusterIps.has('10.96.40.99')).toBe(false);
    // NodePort -> ClusterIP gives the node port back.
    const demoted = store.update<'Service'>({
      ...stored,
      spec: { ...stored.spec, type: 'ClusterIP', ports: [{ ...stored.spec.ports[0]!, nodePort: 0 }] },
    });
    expect(demoted.ok).toBe(true);
    expect(plane.nodePorts.has(30080)).toBe(false);
    store.delete('Service', 'default', 'signalements');
    expect(plane.clusterIps.has('10.96.40.12')).toBe(false);
    expect(create(signalements).ok).toBe(true);
  });

  it('a refused healthCheckNodePort or update leaves every allocator as it was', () => {
    const { store, create, plane } = setup();
    const first = create(signalements);
    if (!first.ok) throw new Error(first.error.message);
    const lb = create({
      name: 'lb',
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 30080,
      ports: [{ port: 443 }],
      selector: { app: 'lb' },
    });
    if (lb.ok) throw new Error('admitted');
    expect(lb.error).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message:
        'Internal error occurred: failed to allocate requested HealthCheck NodePort 30080: provided port is already allocated',
    });
    expect(kubectlError(lb.error)).toBe(
      'Error from server (InternalError): Internal error occurred: failed to allocate requested HealthCheck NodePort 30080: provided port is already allocated\n',
    );
    expect([plane.clusterIps.used, plane.nodePorts.used]).toEqual([1, 1]);
    const other = create({
      name: 'other',
      type: 'NodePort',
      ports: [{ port: 80, nodePort: 30090 }],
      selector: { app: 'o' },
    });
    if (!other.ok) throw new Error(other.error.message);
    // Moving signalements to 30090 is refused; it keeps 30080 and 30090 stays other's.
    const moved = store.update<'Service'>({
      ...first.value,
      spec: { ...first.value.spec, ports: [{ ...first.value.spec.ports[0]!, nodePort: 30090 }] },
    });
    expect(!moved.ok && moved.error.message).toBe(
      'Service "signalements" is invalid: spec.ports[0].nodePort: Invalid value: 30090: provided port is already allocated',
    );
    expect([plane.nodePorts.has(30080), plane.nodePorts.has(30090), plane.nodePorts.used]).toEqual([
      true,
      true,
      2,
    ]);
    expect(store.get('Service', 'default', 'signalements')!.spec.ports[0]!.nodePort).toBe(30080);
  });
});
