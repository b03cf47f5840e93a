// Defaulting and validation of Pods, Nodes, Deployments, DaemonSets and EndpointSlices as the API server does them,
// for the fields packetlab's objects carry (Services are in service.ts). No init containers, volumes, probes'
// own checks, resources or security contexts; a pod update may change anything (no immutability checks).
//
// mirrors pkg/apis/core/v1/defaults.go (SetDefaults_Pod, SetDefaults_PodSpec: terminationGracePeriodSeconds 30,
// container port protocol TCP), pkg/apis/apps/v1/defaults.go (SetDefaults_Deployment: replicas 1, maxSurge and
// maxUnavailable 25%), pkg/controller/deployment/util (ResolveFenceposts: surge rounded up, unavailable down, both 0
// makes unavailable 1) and pkg/apis/core/validation/validation.go (ValidatePodCreate, validateContainerPorts,
// ValidateNode), pkg/apis/apps/validation (ValidateDeploymentSpec, ValidateDaemonSetSpec).

import type {
  Container,
  DaemonSet,
  Deployment,
  EndpointSlice,
  Node,
  Pod,
  PodSpec,
  PodTemplate,
} from '../objects.ts';
import { type Admitted, type ApiResult, invalid } from '../store.ts';
import {
  causeText,
  duplicate,
  type FieldError,
  type GoValue,
  goQuote,
  invalidValue,
  notSupported,
  required,
} from './field-errors.ts';
import { validateObjectMeta } from './meta.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors, portNameErrors, portNumErrors } from './names.ts';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

type Loose<T> = { -readonly [K in keyof T]?: T[K] };

function defaultContainer(container: Loose<Container>): Container {
  return {
    name: container.name ?? '',
    image: container.image ?? '',
    ports: (container.ports ?? []).map((port) => ({
      name: port.name ?? '',
      containerPort: port.containerPort ?? 0,
      protocol: port.protocol ?? 'TCP',
    })),
    readinessProbe: container.readinessProbe,
    ...(container.lifecycle !== undefined ? { lifecycle: container.lifecycle } : {}),
  };
}

/** SetDefaults_PodSpec for the fields a PodSpec here has. */
export function defaultPodSpec(spec: Loose<PodSpec> | undefined): PodSpec {
  return {
    nodeName: spec?.nodeName ?? '',
    containers: (spec?.containers ?? []).map(defaultContainer),
    hostNetwork: spec?.hostNetwork ?? false,
    terminationGracePeriodSeconds: spec?.terminationGracePeriodSeconds ?? 30,
    tolerations: spec?.tolerations ?? [],
    ...(spec?.dnsConfig !== undefined ? { dnsConfig: spec.dnsConfig } : {}),
  };
}

function defaultTemplate(template: Loose<PodTemplate> | undefined): PodTemplate {
  const { nodeName: _unused, ...spec } = defaultPodSpec(template?.spec as Loose<PodSpec>);
  return { labels: template?.labels ?? {}, spec };
}

/** validateContainers and validateContainerPorts. */
function validateContainers(containers: readonly Container[], path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (containers.length === 0) errors.push(required(path));
  const names = new Set<string>();
  containers.forEach((container, i) => {
    const at = `${path}[${i}]`;
    if (container.name === '') errors.push(required(`${at}.name`));
    else {
      for (const message of dns1123LabelErrors(container.name)) {
        errors.push(invalidValue(`${at}.name`, container.name, message));
      }
      if (names.has(container.name)) errors.push(duplicate(`${at}.name`, container.name));
      names.add(container.name);
    }
    if (container.image === '') errors.push(required(`${at}.image`));
    const portNames = new Set<string>();
    container.ports.forEach((port, j) => {
      const portPath = `${at}.ports[${j}]`;
      if (port.name !== '') {
        const messages = portNameErrors(port.name);
        if (messages.length > 0) {
          for (const message of messages) errors.push(invalidValue(`${portPath}.name`, port.name, message));
        } else if (portNames.has(port.name)) errors.push(duplicate(`${portPath}.name`, port.name));
        else portNames.add(port.name);
      }
      if (port.containerPort === 0) errors.push(required(`${portPath}.containerPort`));
      else {
        for (const message of portNumErrors(port.containerPort)) {
          errors.push(invalidValue(`${portPath}.containerPort`, port.containerPort, message));
        }
      }
      if (!PROTOCOLS.includes(port.protocol)) {
        errors.push(notSupported(`${portPath}.protocol`, port.protocol, PROTOCOLS));
      }
    });
  });
  return errors;
}

function refuse<T>(
  kind: 'Pod' | 'Node' | 'Deployment' | 'DaemonSet' | 'EndpointSlice',
  name: string,
  errors: FieldError[],
  value: T,
): ApiResult<T> {
  return errors.length === 0 ? { ok: true, value } : invalid(kind, name, errors.map(causeText));
}

/** Pod: defaults, then ValidatePodCreate's name, namespace and container checks. */
export function admitPod(raw: Pod): ApiResult<Pod> | Admitted<Pod> {
  const status = (raw.status ?? {}) as Loose<Pod['status']>;
  const pod: Pod = {
    ...raw,
    spec: defaultPodSpec(raw.spec as Loose<PodSpec>),
    status: {
      phase: status.phase ?? 'Pending',
      podIP: status.podIP ?? '',
      hostIP: status.hostIP ?? '',
      ready: status.ready ?? false,
      containerStatuses: status.containerStatuses ?? [],
    },
  };
  const errors = validateObjectMeta(pod.metadata, true, dns1123SubdomainErrors);
  errors.push(...validateContainers(pod.spec.containers, 'spec.containers'));
  return refuse('Pod', pod.metadata.name, errors, pod);
}

/** Node: defaults (schedulable, ready, no taints) and a DNS-1123 subdomain name. */
export function admitNode(raw: Node): ApiResult<Node> {
  const spec = (raw.spec ?? {}) as Loose<Node['spec']>;
  const status = (raw.status ?? {}) as Loose<Node['status']>;
  const podCIDR = spec.podCIDR ?? '';
  const node: Node = {
    ...raw,
    spec: {
      podCIDR,
      podCIDRs: spec.podCIDRs ?? (podCIDR === '' ? [] : [podCIDR]),
      unschedulable: spec.unschedulable ?? false,
      taints: spec.taints ?? [],
    },
    status: { addresses: status.addresses ?? [], ready: status.ready ?? true },
  };
  return refuse(
    'Node',
    node.metadata.name,
    validateObjectMeta(node.metadata, false, dns1123SubdomainErrors),
    node,
  );
}

/** Go's %#v of a map[string]string (keys sorted, as fmt prints maps). */
function goMap(map: Readonly<Record<string, string>>): GoValue {
  const pairs = Object.keys(map)
    .sort()
    .map((key) => `${goQuote(key)}:${goQuote(map[key]!)}`);
  return { go: `map[string]string{${pairs.join(', ')}}` };
}

function selects(
  selector: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/** ValidatePodTemplateSpecForReplicaSet/DaemonSet's selector check and the template's containers. */
function validateTemplate(selector: Readonly<Record<string, string>>, template: PodTemplate): FieldError[] {
  const errors: FieldError[] = [];
  if (Object.keys(selector).length > 0 && !selects(selector, template.labels)) {
    errors.push(
      invalidValue(
        'spec.template.metadata.labels',
        goMap(template.labels),
        '`selector` does not match template `labels`',
      ),
    );
  }
  errors.push(...validateContainers(template.spec.containers, 'spec.template.spec.containers'));
  return errors;
}

/** Go's math.Ceil/Floor of a 25% share, as intstr.GetScaledValueFromIntOrPercent rounds it. */
export function resolveFenceposts(replicas: number): { maxSurge: number; maxUnavailable: number } {
  const maxSurge = Math.ceil((replicas * 25) / 100);
  let maxUnavailable = Math.floor((replicas * 25) / 100);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

/** Deployment: replicas 1, 25%/25% as counts of the replicas it is created with, selector = template labels. */
export function admitDeployment(raw: Deployment): ApiResult<Deployment> {
  const spec = (raw.spec ?? {}) as Loose<Deployment['spec']>;
  const replicas = spec.replicas ?? 1;
  const template = defaultTemplate(spec.template as Loose<PodTemplate>);
  const fenceposts = resolveFenceposts(replicas);
  const deployment: Deployment = {
    ...raw,
    spec: {
      replicas,
      selector: spec.selector ?? template.labels,
      template,
      maxSurge: spec.maxSurge ?? fenceposts.maxSurge,
      maxUnavailable: spec.maxUnavailable ?? fenceposts.maxUnavailable,
    },
    status: raw.status ?? { replicas: 0, readyReplicas: 0, updatedReplicas: 0 },
  };
  const errors = validateObjectMeta(deployment.metadata, true, dns1123SubdomainErrors);
  if (!(Number.isInteger(replicas) && replicas >= 0)) {
    errors.push(invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0'));
  }
  errors.push(...validateTemplate(deployment.spec.selector, template));
  return refuse('Deployment', deployment.metadata.name, errors, deployment);
}

/** DaemonSet: selector = template labels when none is given. */
export function admitDaemonSet(raw: DaemonSet): ApiResult<DaemonSet> {
  const spec = (raw.spec ?? {}) as Loose<DaemonSet['spec']>;
  const template = defaultTemplate(spec.template as Loose<PodTemplate>);
  const daemonSet: DaemonSet = {
    ...raw,
    spec: { selector: spec.selector ?? template.labels, template },
    status: raw.status ?? { desiredNumberScheduled: 0, numberReady: 0 },
  };
  const errors = validateObjectMeta(daemonSet.metadata, true, dns1123SubdomainErrors);
  errors.push(...validateTemplate(daemonSet.spec.selector, template));
  return refuse('DaemonSet', daemonSet.metadata.name, errors, daemonSet);
}

/** EndpointSlice: a DNS-1123 subdomain name. */
export function admitEndpointSlice(slice: EndpointSlice): ApiResult<EndpointSlice> {
  return refuse(
    'EndpointSlice',
    slice.metadata.name,
    validateObjectMeta(slice.metadata, true, dns1123SubdomainErrors),
    slice,
  );
}
