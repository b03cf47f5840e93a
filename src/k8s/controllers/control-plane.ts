// The control plane in one object: the API server's admission (defaults, allocators, validation) registered on a
// Store, and the controllers kube-controller-manager and kube-scheduler run (EndpointSlices, Deployments, DaemonSets,
// scheduling, graceful pod deletion and pod GC), all in virtual time on the simulation's scheduler. Construct it
// before creating objects. No kubelet (pod status is the kubelet's); the `kubernetes` Service only on request.

import type { Rng } from '../../core/rng.ts';
import type { Scheduler } from '../../core/scheduler.ts';
import { ClusterIpAllocator, NodePortAllocator } from '../api/allocators.ts';
import { service } from '../api/builders.ts';
import { admitDaemonSet, admitDeployment, admitEndpointSlice, admitNode, admitPod } from '../api/defaults.ts';
import { ServiceAdmission } from '../api/service.ts';
import { type Deployment, type Pod, SERVICE_NAME_LABEL, type Service } from '../objects.ts';
import { type ApiResult, notFound, type Store } from '../store.ts';
import { DaemonSetController } from './daemonset.ts';
import { DeploymentController } from './deployment.ts';
import { EndpointSliceController } from './endpointslice.ts';
import { PodTermination } from './pod-termination.ts';
import { PodScheduler } from './scheduler.ts';

/** The address kind's kubeadm pins for the kube-dns Service (the 10th of the service range). */
export const KUBE_DNS_SERVICE_IP = '10.96.0.10';

export interface ControlPlaneOptions {
  /** --service-cluster-ip-range; kind's default. */
  readonly serviceCidr?: string;
  /** --service-node-port-range, `FIRST-LAST`. */
  readonly nodePortRange?: string;
}

export class ControlPlane {
  readonly clusterIps: ClusterIpAllocator;
  readonly nodePorts: NodePortAllocator;
  readonly services: ServiceAdmission;
  readonly termination: PodTermination;
  readonly endpointSlices: EndpointSliceController;
  readonly podScheduler: PodScheduler;
  readonly deployments: DeploymentController;
  readonly daemonSets: DaemonSetController;

  constructor(
    readonly store: Store,
    readonly scheduler: Scheduler,
    rng: Rng,
    options: ControlPlaneOptions = {},
  ) {
    const [first, last] = (options.nodePortRange ?? '30000-32767').split('-').map(Number);
    this.clusterIps = new ClusterIpAllocator(options.serviceCidr ?? '10.96.0.0/12', rng.fork('cluster-ip'));
    this.nodePorts = new NodePortAllocator(first!, last!, rng.fork('node-port'));
    this.services = new ServiceAdmission(this.clusterIps, this.nodePorts);
    store.admit('Service', this.services.admit);
    store.onRelease('Service', this.services.release);
    store.admit('Pod', admitPod);
    store.admit('Node', admitNode);
    store.admit('Deployment', admitDeployment);
    store.admit('DaemonSet', admitDaemonSet);
    store.admit('EndpointSlice', admitEndpointSlice);
    this.termination = new PodTermination(store, scheduler);
    this.endpointSlices = new EndpointSliceController(store, scheduler, rng.fork('endpointslice'));
    this.podScheduler = new PodScheduler(store, scheduler);
    this.deployments = new DeploymentController(store, scheduler, rng.fork('deployment'), this.termination);
    this.daemonSets = new DaemonSetController(store, scheduler, rng.fork('daemonset'), this.termination);
  }

  /**
   * The `kubernetes` Service the API server keeps in `default` (the first address of the range, 10.96.0.1 on kind;
   * https 443 -> 6443) and its EndpointSlice `kubernetes` naming the API server's address. The API server's own
   * endpoint has no pod: its nodeName and targetRef name are ''.
   */
  createKubernetesService(apiServerAddress: string, securePort = 6443): ApiResult<Service> {
    const created = this.store.create<'Service'>(
      service({
        name: 'kubernetes',
        labels: { component: 'apiserver', provider: 'kubernetes' },
        clusterIP: this.clusterIps.nth(1),
        ports: [{ name: 'https', port: 443, targetPort: securePort }],
      }),
    );
    if (!created.ok) return created;
    const slice = this.store.create<'EndpointSlice'>({
      kind: 'EndpointSlice',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { [SERVICE_NAME_LABEL]: 'kubernetes' } },
      addressType: 'IPv4',
      endpoints: [
        {
          addresses: [apiServerAddress],
          conditions: { ready: true, serving: true, terminating: false },
          nodeName: '',
          targetRef: { kind: 'Pod', namespace: '', name: '' },
        },
      ],
      ports: [{ name: 'https', port: securePort, protocol: 'TCP' }],
    });
    return slice.ok ? created : slice;
  }

  /** `kubectl delete pod`: graceful, see PodTermination.delete. */
  deletePod(namespace: string, name: string, gracePeriodSeconds?: number): ApiResult<Pod> {
    return this.termination.delete(namespace, name, gracePeriodSeconds);
  }

  /** `kubectl scale deployment NAME --replicas=N`. */
  scale(namespace: string, name: string, replicas: number): ApiResult<Deployment> {
    const current = this.store.get('Deployment', namespace, name);
    if (current === undefined) return notFound('Deployment', name);
    return this.store.update<'Deployment'>({ ...current, spec: { ...current.spec, replicas } });
  }
}
