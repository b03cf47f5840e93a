// The API server's handling of a Service on create and update: defaulting, ClusterIP and NodePort allocation, then
// validation, in that order (allocation happens in the REST storage's BeginCreate/BeginUpdate, before the strategy
// validates), with the refusal texts of v1.31. Single-stack IPv4 only; no ExternalName, no loadBalancerClass, no
// topology annotations, no allocateLoadBalancerNodePorts=false.
//
// mirrors pkg/apis/core/v1/defaults.go (SetDefaults_Service), pkg/registry/core/service/storage/alloc.go
// (allocIPs, initNodePorts, allocHealthCheckNodePort, updateNodePorts, updateHealthCheckNodePort),
// storage.go (patchAllocatedValues) and pkg/apis/core/validation/validation.go (ValidateService,
// validateServicePort, ValidateServiceUpdate's validateUpgradeDowngradeClusterIPs,
// validateServiceExternalTrafficPolicy).

import ipaddr from 'ipaddr.js';
import type { Protocol, Service, ServicePort, ServiceType, TrafficPolicy } from '../objects.ts';
import { type Admitted, type ApiResult, internalError, invalid } from '../store.ts';
import type { ClusterIpAllocator, NodePortAllocator } from './allocators.ts';
import {
  causeText,
  duplicate,
  type FieldError,
  forbidden,
  goQuote,
  goStrings,
  invalidValue,
  notSupported,
  required,
} from './field-errors.ts';
import { validateObjectMeta } from './meta.ts';
import { dns1035LabelErrors, dns1123LabelErrors, portNameErrors, portNumErrors } from './names.ts';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const AFFINITIES = ['ClientIP', 'None'];
const POLICIES = ['Cluster', 'Local'];
/** core.MaxClientIPServiceAffinitySeconds */
const MAX_AFFINITY_SECONDS = 86400;
/** ports.KubeletPort: a LoadBalancer may not expose it. */
const KUBELET_PORT = 10250;

/** Service.spec as a caller may leave it: any field may be missing and is defaulted. */
type LooseSpec = Partial<Omit<Service['spec'], 'ports'>> & {
  readonly ports?: readonly Partial<ServicePort>[];
};

function needsNodePorts(type: ServiceType): boolean {
  return type === 'NodePort' || type === 'LoadBalancer';
}

/** apiservice.ExternallyAccessible */
function externallyAccessible(spec: { type: ServiceType; externalIPs: readonly string[] }): boolean {
  return needsNodePorts(spec.type) || (spec.type === 'ClusterIP' && spec.externalIPs.length > 0);
}

/** apiservice.NeedsHealthCheck */
export function needsHealthCheck(spec: { type: ServiceType; externalTrafficPolicy: TrafficPolicy }): boolean {
  return spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
}

/**
 * SetDefaults_Service and the fields packetlab's Service always carries: type ClusterIP, sessionAffinity None
 * (timeout 10800), protocol TCP, targetPort = port, internalTrafficPolicy Cluster, externalTrafficPolicy Cluster
 * (which the API server sets only for externally accessible Services; a ClusterIP Service gets it after validation,
 * a deviation: the field here cannot be empty).
 */
export function defaultService(service: Service): Service {
  const spec = (service.spec ?? {}) as LooseSpec;
  const type = spec.type ?? 'ClusterIP';
  const externalIPs = spec.externalIPs ?? [];
  return {
    ...service,
    spec: {
      type,
      clusterIP: spec.clusterIP ?? '',
      ports: (spec.ports ?? []).map((port) => {
        const number = port.port ?? 0;
        const target = port.targetPort;
        return {
          name: port.name ?? '',
          protocol: port.protocol ?? 'TCP',
          port: number,
          targetPort: target === undefined || target === 0 || target === '' ? number : target,
          nodePort: port.nodePort ?? 0,
        };
      }),
      selector: spec.selector ?? {},
      sessionAffinity: spec.sessionAffinity ?? 'None',
      sessionAffinityTimeoutSeconds: spec.sessionAffinityTimeoutSeconds ?? 10800,
      externalTrafficPolicy:
        spec.externalTrafficPolicy ||
        (externallyAccessible({ type, externalIPs }) ? 'Cluster' : ('' as TrafficPolicy)),
      internalTrafficPolicy: spec.internalTrafficPolicy || 'Cluster',
      healthCheckNodePort: spec.healthCheckNodePort ?? 0,
      externalIPs,
      loadBalancerSourceRanges: spec.loadBalancerSourceRanges ?? [],
    },
    status: { loadBalancerIngress: service.status?.loadBalancerIngress ?? [] },
  };
}

function isIPv4(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text);
}

const VALID_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** Go's %#v of the core.ServicePort key the duplicate-port check builds (protocol and port only). */
function servicePortKey(protocol: Protocol, port: number) {
  return {
    go: `core.ServicePort{Name:"", Protocol:${goQuote(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
  };
}

/** validateServicePort */
function validatePort(
  port: ServicePort,
  requireName: boolean,
  names: Set<string>,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  if (requireName && port.name === '') {
    errors.push(required(`${path}.name`));
  } else if (port.name !== '') {
    for (const message of dns1123LabelErrors(port.name))
      errors.push(invalidValue(`${path}.name`, port.name, message));
    if (names.has(port.name)) errors.push(duplicate(`${path}.name`, port.name));
    else names.add(port.name);
  }
  for (const message of portNumErrors(port.port))
    errors.push(invalidValue(`${path}.port`, port.port, message));
  if (!PROTOCOLS.includes(port.protocol))
    errors.push(notSupported(`${path}.protocol`, port.protocol, PROTOCOLS));
  if (typeof port.targetPort === 'number') {
    for (const message of portNumErrors(port.targetPort)) {
      errors.push(invalidValue(`${path}.targetPort`, port.targetPort, message));
    }
  } else {
    for (const message of portNameErrors(port.targetPort)) {
      errors.push(invalidValue(`${path}.targetPort`, port.targetPort, message));
    }
  }
  return errors;
}

/** ValidateService, on a defaulted and allocated Service; `etpGiven` says whether the caller set the policy. */
export function validateService(service: Service, etpGiven: boolean): FieldError[] {
  const { spec } = service;
  const errors = validateObjectMeta(service.metadata, true, dns1035LabelErrors);
  const headless = spec.clusterIP === 'None';
  if (spec.ports.length === 0 && !headless) errors.push(required('spec.ports'));
  if (spec.type === 'LoadBalancer') {
    if (headless)
      errors.push(
        invalidValue('spec.clusterIPs[0]', 'None', "may not be set to 'None' for LoadBalancer services"),
      );
    spec.ports.forEach((port, i) => {
      if (port.port === KUBELET_PORT) {
        errors.push(
          invalidValue(
            `spec.ports[${i}]`,
            port.port,
            `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`,
          ),
        );
      }
    });
  } else if (spec.type === 'NodePort' && headless) {
    errors.push(invalidValue('spec.clusterIPs[0]', 'None', "may not be set to 'None' for NodePort services"));
  }
  const names = new Set<string>();
  spec.ports.forEach((port, i) => {
    errors.push(...validatePort(port, spec.ports.length > 1, names, `spec.ports[${i}]`));
  });
  if (!AFFINITIES.includes(spec.sessionAffinity)) {
    errors.push(notSupported('spec.sessionAffinity', spec.sessionAffinity, AFFINITIES));
  }
  if (spec.sessionAffinity === 'ClientIP') {
    const timeout = spec.sessionAffinityTimeoutSeconds;
    if (!(timeout > 0 && timeout <= MAX_AFFINITY_SECONDS)) {
      errors.push(
        invalidValue(
          'spec.sessionAffinityConfig.clientIP.timeoutSeconds',
          timeout,
          `must be greater than 0 and less than ${MAX_AFFINITY_SECONDS}`,
        ),
      );
    }
  }
  spec.externalIPs.forEach((ip, i) => {
    if (!isIPv4(ip)) errors.push(invalidValue(`spec.externalIPs[${i}]`, ip, VALID_IP));
  });
  if (!SERVICE_TYPES.includes(spec.type) || (spec.type as string) === 'ExternalName') {
    errors.push(notSupported('spec.type', spec.type, SERVICE_TYPES));
  }
  if (spec.type === 'ClusterIP') {
    spec.ports.forEach((port, i) => {
      if (port.nodePort !== 0) {
        errors.push(forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
      }
    });
  }
  const nodePorts = new Set<string>();
  spec.ports.forEach((port, i) => {
    if (port.nodePort === 0) return;
    const key = `${port.protocol}/${port.nodePort}`;
    if (nodePorts.has(key)) errors.push(duplicate(`spec.ports[${i}].nodePort`, port.nodePort));
    nodePorts.add(key);
  });
  const ports = new Set<string>();
  spec.ports.forEach((port, i) => {
    const key = `${port.protocol}/${port.port}`;
    if (ports.has(key)) errors.push(duplicate(`spec.ports[${i}]`, servicePortKey(port.protocol, port.port)));
    ports.add(key);
  });
  if (!externallyAccessible(spec)) {
    if (etpGiven) {
      errors.push(
        invalidValue(
          'spec.externalTrafficPolicy',
          spec.externalTrafficPolicy,
          'may only be set for externally-accessible services',
        ),
      );
    }
  } else if (!POLICIES.includes(spec.externalTrafficPolicy)) {
    errors.push(notSupported('spec.externalTrafficPolicy', spec.externalTrafficPolicy, POLICIES));
  }
  if (!needsHealthCheck(spec) && spec.healthCheckNodePort !== 0) {
    errors.push(
      invalidValue(
        'spec.healthCheckNodePort',
        spec.healthCheckNodePort,
        "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
      ),
    );
  }
  if (!POLICIES.includes(spec.internalTrafficPolicy)) {
    errors.push(notSupported('spec.internalTrafficPolicy', spec.internalTrafficPolicy, POLICIES));
  }
  return errors;
}

/** The node ports a Service holds (ports' nodePorts, without repeats, then its healthCheckNodePort). */
export function heldNodePorts(service: Service): number[] {
  const held = new Set<number>();
  for (const port of service.spec.ports) if (port.nodePort !== 0) held.add(port.nodePort);
  if (service.spec.healthCheckNodePort !== 0) held.add(service.spec.healthCheckNodePort);
  return [...held];
}

/** One admission's reservations, undone all at once if the object is refused. */
class Reservation {
  private readonly ips: string[] = [];
  private readonly ports: number[] = [];
  private readonly releasedPorts: number[] = [];

  constructor(
    private readonly ipAllocator: ClusterIpAllocator,
    private readonly portAllocator: NodePortAllocator,
  ) {}

  tookIp(ip: string): void {
    this.ips.push(ip);
  }

  tookPort(port: number): void {
    this.ports.push(port);
  }

  releasePort(port: number): void {
    this.portAllocator.release(port);
    this.releasedPorts.push(port);
  }

  revert(): void {
    for (const ip of this.ips) this.ipAllocator.release(ip);
    for (const port of this.ports) this.portAllocator.release(port);
    for (const port of this.releasedPorts) this.portAllocator.allocate(port);
  }
}

/** The Service admission step and its release hook, over the cluster's two allocators. */
export class ServiceAdmission {
  constructor(
    readonly clusterIps: ClusterIpAllocator,
    readonly nodePorts: NodePortAllocator,
  ) {}

  /** Gives a deleted Service's ClusterIP and node ports back (Store.onRelease). */
  readonly release = (service: Service): void => {
    if (service.spec.clusterIP !== '' && service.spec.clusterIP !== 'None')
      this.clusterIps.release(service.spec.clusterIP);
    for (const port of heldNodePorts(service)) this.nodePorts.release(port);
  };

  readonly admit = (raw: Service, old: Service | undefined): ApiResult<Service> | Admitted<Service> => {
    // 'Cluster' is what packetlab stores for every Service, so only 'Local' counts as set on a ClusterIP Service.
    const etpGiven = (raw.spec as LooseSpec | undefined)?.externalTrafficPolicy === 'Local';
    let service = defaultService(raw);
    if (old !== undefined) service = patchAllocatedValues(service, old);
    const name = service.metadata.name;
    // ValidateServiceClusterIPsRelatedFields runs before allocation (initIPFamilyFields).
    const { clusterIP } = service.spec;
    if (clusterIP !== '' && clusterIP !== 'None' && !isIPv4(clusterIP)) {
      return invalid('Service', name, [causeText(invalidValue('spec.clusterIPs[0]', clusterIP, VALID_IP))]);
    }
    const reservation = new Reservation(this.clusterIps, this.nodePorts);
    const allocated =
      old === undefined
        ? this.allocateCreate(service, reservation)
        : this.allocateUpdate(service, old, reservation);
    if (!allocated.ok) {
      reservation.revert();
      return allocated;
    }
    service = allocated.value;
    const errors: FieldError[] = [];
    if (old !== undefined && old.spec.clusterIP !== '' && service.spec.clusterIP !== old.spec.clusterIP) {
      errors.push(
        invalidValue('spec.clusterIPs[0]', goStrings([service.spec.clusterIP]), 'may not change once set'),
      );
    }
    errors.push(...validateService(service, etpGiven));
    if (errors.length > 0) {
      reservation.revert();
      return invalid('Service', name, errors.map(causeText));
    }
    if (service.spec.externalTrafficPolicy === ('' as TrafficPolicy)) {
      service = { ...service, spec: { ...service.spec, externalTrafficPolicy: 'Cluster' } };
    }
    return { ok: true, value: service, revert: () => reservation.revert() };
  };

  private allocateCreate(service: Service, reservation: Reservation): ApiResult<Service> {
    let spec = service.spec;
    const name = service.metadata.name;
    if (spec.clusterIP === '') {
      const ip = this.clusterIps.allocateNext();
      if (ip === undefined) return internalError('failed to allocate a serviceIP: range is full');
      reservation.tookIp(ip);
      spec = { ...spec, clusterIP: ip };
    } else if (spec.clusterIP !== 'None') {
      const taken = this.clusterIps.allocate(spec.clusterIP);
      if (!taken.ok) {
        return invalid('Service', name, [
          causeText(
            invalidValue(
              'spec.clusterIPs',
              goStrings([spec.clusterIP]),
              `failed to allocate IP ${spec.clusterIP}: ${taken.error}`,
            ),
          ),
        ]);
      }
      reservation.tookIp(spec.clusterIP);
    }
    if (needsNodePorts(spec.type)) {
      const ports = this.initNodePorts(service.metadata.name, spec.ports, reservation);
      if (!ports.ok) return ports;
      spec = { ...spec, ports: ports.value };
    }
    if (needsHealthCheck(spec)) {
      const port = this.allocateHealthCheck(spec.healthCheckNodePort, reservation);
      if (!port.ok) return port;
      spec = { ...spec, healthCheckNodePort: port.value };
    }
    return { ok: true, value: { ...service, spec } };
  }

  /** initNodePorts: ports with the same port number share one node port (TCP and UDP on 53 get the same). */
  private initNodePorts(
    name: string,
    ports: readonly ServicePort[],
    reservation: Reservation,
  ): ApiResult<ServicePort[]> {
    const byServicePort = new Map<number, number>();
    const out: ServicePort[] = [];
    for (const [i, port] of ports.entries()) {
      const shared = byServicePort.get(port.port) ?? 0;
      let nodePort = port.nodePort;
      if (shared === 0) {
        const requested =
          ports.find((other) => other.port === port.port && other.nodePort !== 0)?.nodePort ?? 0;
        if (requested !== 0) {
          const taken = this.nodePorts.allocate(requested);
          if (!taken.ok) {
            return invalidNodePort(name, `spec.ports[${i}].nodePort`, requested, taken.error);
          }
          reservation.tookPort(requested);
          nodePort = requested;
        } else {
          const next = this.nodePorts.allocateNext();
          if (next === undefined) return internalError('failed to allocate a nodePort: range is full');
          reservation.tookPort(next);
          nodePort = next;
        }
        byServicePort.set(port.port, nodePort);
      } else if (port.nodePort !== shared) {
        if (port.nodePort === 0) {
          nodePort = shared;
        } else {
          const taken = this.nodePorts.allocate(port.nodePort);
          if (!taken.ok)
            return invalidNodePort(name, `spec.ports[${i}].nodePort`, port.nodePort, taken.error);
          reservation.tookPort(port.nodePort);
        }
      }
      out.push({ ...port, nodePort });
    }
    return { ok: true, value: out };
  }

  private allocateHealthCheck(requested: number, reservation: Reservation): ApiResult<number> {
    if (requested !== 0) {
      const taken = this.nodePorts.allocate(requested);
      if (!taken.ok) {
        return internalError(
          `failed to allocate requested HealthCheck NodePort ${requested}: ${taken.error}`,
        );
      }
      reservation.tookPort(requested);
      return { ok: true, value: requested };
    }
    const next = this.nodePorts.allocateNext();
    if (next === undefined)
      return internalError('failed to allocate a HealthCheck NodePort 0: range is full');
    reservation.tookPort(next);
    return { ok: true, value: next };
  }

  private allocateUpdate(service: Service, old: Service, reservation: Reservation): ApiResult<Service> {
    let spec = service.spec;
    const name = service.metadata.name;
    const oldPorts = heldNodePorts({ ...old, spec: { ...old.spec, healthCheckNodePort: 0 } });
    if (needsNodePorts(old.spec.type) && spec.type === 'ClusterIP') {
      for (const port of oldPorts) reservation.releasePort(port);
    }
    if (needsNodePorts(spec.type)) {
      const taken = new Set<number>();
      const ports: ServicePort[] = [];
      for (const [i, port] of spec.ports.entries()) {
        let nodePort = port.nodePort;
        if (nodePort !== 0) {
          if (!oldPorts.includes(nodePort) && !taken.has(nodePort)) {
            const result = this.nodePorts.allocate(nodePort);
            if (!result.ok) return invalidNodePort(name, `spec.ports[${i}].nodePort`, nodePort, result.error);
            reservation.tookPort(nodePort);
            taken.add(nodePort);
          }
        } else {
          const next = this.nodePorts.allocateNext();
          if (next === undefined) return internalError('failed to allocate a nodePort: range is full');
          reservation.tookPort(next);
          nodePort = next;
        }
        ports.push({ ...port, nodePort });
      }
      const kept = new Set(ports.map((port) => port.nodePort));
      if (needsNodePorts(old.spec.type)) {
        for (const port of oldPorts) if (!kept.has(port)) reservation.releasePort(port);
      }
      spec = { ...spec, ports };
    }
    const needed = needsHealthCheck(old.spec);
    const needs = needsHealthCheck(spec);
    if (!needed && needs) {
      const port = this.allocateHealthCheck(spec.healthCheckNodePort, reservation);
      if (!port.ok) return port;
      spec = { ...spec, healthCheckNodePort: port.value };
    } else if (needed && !needs) {
      reservation.releasePort(old.spec.healthCheckNodePort);
      spec = { ...spec, healthCheckNodePort: 0 };
    }
    return { ok: true, value: { ...service, spec } };
  }
}

/** A nodePort refusal: `spec.ports[I].nodePort: Invalid value: N: ERROR`. */
function invalidNodePort(name: string, field: string, port: number, error: string): ApiResult<never> {
  return invalid('Service', name, [causeText(invalidValue(field, port, error))]);
}

/**
 * patchAllocatedValues: an update that leaves clusterIP, a nodePort or the healthCheckNodePort empty keeps the one
 * already allocated (as `kubectl apply` of a manifest without them does).
 */
function patchAllocatedValues(service: Service, old: Service): Service {
  const spec = service.spec;
  const clusterIP = spec.clusterIP === '' ? old.spec.clusterIP : spec.clusterIP;
  let ports = spec.ports;
  if (needsNodePorts(old.spec.type) && needsNodePorts(spec.type)) {
    ports = spec.ports.map((port) => {
      if (port.nodePort !== 0) return port;
      const before = old.spec.ports.find((o) => o.port === port.port && o.protocol === port.protocol);
      return before === undefined ? port : { ...port, nodePort: before.nodePort };
    });
  }
  const healthCheckNodePort =
    spec.healthCheckNodePort === 0 && needsHealthCheck(old.spec) && needsHealthCheck(spec)
      ? old.spec.healthCheckNodePort
      : spec.healthCheckNodePort;
  return { ...service, spec: { ...spec, clusterIP, ports, healthCheckNodePort } };
}
