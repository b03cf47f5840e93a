// `kubectl expose deployment|pod|service NAME [--port=P] [--target-port=T] [--type=TYPE] [--name=SVC]
// [--protocol=TCP|UDP] [-n NS]`: a Service selecting what the object selects (a Deployment's selector, a pod's
// labels, a Service's selector), created through the store's admission (ClusterIP and NodePort allocated there). No
// --selector/--external-ip/--load-balancer-ip/--session-affinity/--cluster-ip, no -f, no --dry-run/-o.
//
// mirrors staging/src/k8s.io/kubectl/pkg/cmd/expose/expose.go (RunExpose: the selector and ports by introspection,
// `couldn't find port via --port flag or introspection`, `service/NAME exposed`) and its service generator
// (one --port gives one unnamed port whose targetPort is --target-port or the port; introspected ports are named
// `port-1`, `port-2`... when there are several).

import { type CommandResult, unsupported } from '../../../tools/result.ts';
import { type PortInput, service } from '../../api/builders.ts';
import type { Protocol, ServiceType } from '../../objects.ts';
import { notFound } from '../../store.ts';
import type { ClusterCommandContext } from '../context.ts';
import { type FlagSpec, parseFlags } from '../flags.ts';
import { flagError } from './usage.ts';
import { namespaceOf, ok, serverError, targets, usageError } from './write-args.ts';

const EXPOSE_FLAGS: readonly FlagSpec[] = [
  { long: 'namespace', short: 'n', takesValue: true },
  { long: 'port', takesValue: true },
  { long: 'target-port', takesValue: true },
  { long: 'type', takesValue: true },
  { long: 'name', takesValue: true },
  { long: 'protocol', takesValue: true },
  { long: 'selector', takesValue: true },
  { long: 'external-ip', takesValue: true },
  { long: 'load-balancer-ip', takesValue: true },
  { long: 'session-affinity', takesValue: true },
  { long: 'cluster-ip', takesValue: true },
  { long: 'labels', short: 'l', takesValue: true },
  { long: 'filename', short: 'f', takesValue: true },
  { long: 'dry-run', takesValue: true },
  { long: 'output', short: 'o', takesValue: true },
];

const TYPES: Readonly<Record<string, ServiceType>> = {
  clusterip: 'ClusterIP',
  nodeport: 'NodePort',
  loadbalancer: 'LoadBalancer',
};

export function kubectlExpose(ctx: ClusterCommandContext, argv: readonly string[]): CommandResult {
  const parsed = parseFlags(argv, EXPOSE_FLAGS, { interspersed: true });
  if (!parsed.ok) return flagError('expose', parsed.message);
  const { values, args } = parsed.flags;
  for (const long of [
    'selector',
    'external-ip',
    'load-balancer-ip',
    'session-affinity',
    'cluster-ip',
    'labels',
    'filename',
    'dry-run',
    'output',
  ]) {
    if (values.has(long)) return unsupported('kubectl expose', `--${long}`);
  }
  if (args.length === 0) {
    return usageError(
      'expose',
      'You must provide one or more resources by argument or filename.\n' +
        'Example resource specifications include:\n' +
        "   '-f rsrc.yaml'\n" +
        "   '--filename=rsrc.json'\n" +
        "   '<resource> <name>'\n" +
        "   '<resource>'",
    );
  }
  const found = targets('expose', args, '');
  if (!found.ok) return found.result;
  if (found.names.length !== 1) return unsupported('kubectl expose', 'several objects');
  const objectName = found.names[0]!;
  const namespace = namespaceOf(values);
  let selector: Record<string, string>;
  let containerPorts: { port: number; protocol: Protocol }[] = [];
  switch (found.kind) {
    case 'Deployment': {
      const object = ctx.store.get('Deployment', namespace, objectName);
      if (object === undefined) return missing('Deployment', objectName);
      selector = { ...object.spec.selector };
      containerPorts = object.spec.template.spec.containers.flatMap((c) =>
        c.ports.map((p) => ({ port: p.containerPort, protocol: p.protocol })),
      );
      break;
    }
    case 'Pod': {
      const object = ctx.store.get('Pod', namespace, objectName);
      if (object === undefined) return missing('Pod', objectName);
      if (Object.keys(object.metadata.labels).length === 0)
        return usageError(
          'expose',
          "couldn't retrieve selectors via --selector flag or introspection: the pod has no labels and cannot be exposed",
        );
      selector = { ...object.metadata.labels };
      containerPorts = object.spec.containers.flatMap((c) =>
        c.ports.map((p) => ({ port: p.containerPort, protocol: p.protocol })),
      );
      break;
    }
    case 'Service': {
      const object = ctx.store.get('Service', namespace, objectName);
      if (object === undefined) return missing('Service', objectName);
      selector = { ...object.spec.selector };
      containerPorts = object.spec.ports.map((p) => ({ port: p.port, protocol: p.protocol }));
      break;
    }
    default:
      return unsupported('kubectl expose', found.kind);
  }
  const typeWord = values.get('type');
  let type: ServiceType = 'ClusterIP';
  if (typeWord !== undefined && typeWord !== '') {
    const known = TYPES[typeWord.toLowerCase()];
    if (known === undefined) return unsupported('kubectl expose', `--type=${typeWord}`);
    type = known;
  }
  const protocolWord = values.get('protocol');
  if (protocolWord !== undefined && protocolWord !== 'TCP' && protocolWord !== 'UDP')
    return unsupported('kubectl expose', `--protocol=${protocolWord}`);
  const targetWord = values.get('target-port');
  const targetPort =
    targetWord === undefined ? undefined : /^\d+$/.test(targetWord) ? Number(targetWord) : targetWord;
  let ports: PortInput[];
  const portWord = values.get('port');
  if (portWord !== undefined) {
    if (!/^\d+$/.test(portWord)) return unsupported('kubectl expose', `--port=${portWord}`);
    const port = Number(portWord);
    ports = [{ port, targetPort: targetPort ?? port, protocol: (protocolWord as Protocol) ?? 'TCP' }];
  } else {
    if (containerPorts.length === 0)
      return usageError('expose', "couldn't find port via --port flag or introspection");
    ports = containerPorts.map((p, i) => ({
      ...(containerPorts.length > 1 ? { name: `port-${i + 1}` } : {}),
      port: p.port,
      targetPort: targetPort ?? p.port,
      protocol: (protocolWord as Protocol | undefined) ?? p.protocol,
    }));
  }
  const name = values.get('name') ?? objectName;
  const created = ctx.store.create<'Service'>(service({ name, namespace, type, ports, selector }));
  if (!created.ok) return serverError(created.error);
  return ok(`service/${name} exposed\n`);
}

function missing(kind: 'Deployment' | 'Pod' | 'Service', name: string): CommandResult {
  const refusal = notFound(kind, name);
  return refusal.ok ? ok('') : serverError(refusal.error);
}
