// The cluster's one object store (what the API server and etcd are to a real cluster): create, update, delete,
// get and list by kind, admission steps that default and validate with the API server's wording, and watches whose
// events controllers react to. No field selectors, no server-side apply, no optimistic-concurrency checks.
//
// Watch events are delivered synchronously, in the order changes are made, as a watch stream delivers them; a
// controller that wants to react "later" schedules its work on the simulation's scheduler.

import { EventEmitter } from 'eventemitter3';
import type { Rng } from '../core/rng.ts';
import {
  isNamespaced,
  type Kind,
  type KubeObject,
  type ObjectMeta,
  type ObjectOfKind,
  objectKey,
} from './objects.ts';

/** A refusal, as the API server reports it (`kubectl` prints `message`). */
export interface ApiError {
  readonly code: 404 | 409 | 422 | 500;
  readonly reason: 'NotFound' | 'AlreadyExists' | 'Invalid' | 'InternalError';
  /** Status.message, e.g. `Service "signalements" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated` */
  readonly message: string;
  /** Status.details of an Invalid refusal: the kind (without group), the name, and one cause per field error. */
  readonly details?: ApiErrorDetails;
}

export interface ApiErrorDetails {
  readonly kind: Kind;
  readonly name: string;
  readonly causes: readonly { readonly field: string; readonly message: string }[];
}

export type ApiResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: ApiError };

export type WatchEvent<T extends KubeObject = KubeObject> =
  | { readonly type: 'ADDED'; readonly object: T }
  | { readonly type: 'MODIFIED'; readonly object: T; readonly old: T }
  | { readonly type: 'DELETED'; readonly object: T };

/**
 * An admission step, run on create and update before anything is stored: returns the object to store (defaulted,
 * addresses allocated) or an error. `old` is undefined on create. A step must not change anything outside the
 * object unless it returns ok (allocators reserve only what they hand out, and release it on delete).
 */
export type Admission<T extends KubeObject> = (object: T, old: T | undefined) => ApiResult<T> | Admitted<T>;

/** An admitted object with what undoes the step's reservations if a later step refuses the object. */
export interface Admitted<T> {
  readonly ok: true;
  readonly value: T;
  readonly revert: () => void;
}

/** What a caller gives on create: the metadata the store fills (uid, resourceVersion, timestamps) may be left out. */
export type NewObject<T extends KubeObject> = Omit<T, 'metadata'> & {
  readonly metadata: Pick<ObjectMeta, 'name'> & Partial<ObjectMeta>;
};

/** The API server's resource name for a kind, as error messages and kubectl print it. */
export const RESOURCE_NAMES: Readonly<Record<Kind, string>> = {
  Node: 'nodes',
  Pod: 'pods',
  Service: 'services',
  EndpointSlice: 'endpointslices.discovery.k8s.io',
  Deployment: 'deployments.apps',
  DaemonSet: 'daemonsets.apps',
};

export class Store {
  private readonly objects = new Map<Kind, Map<string, KubeObject>>();
  private readonly admissions = new Map<Kind, Admission<KubeObject>[]>();
  private readonly releases = new Map<Kind, ((object: KubeObject) => void)[]>();
  private readonly events = new EventEmitter();
  /** `snapshot`'s arrays, by kind, until the kind next changes. */
  private readonly snapshots = new Map<Kind, readonly KubeObject[]>();
  private revision = 0;

  constructor(
    private readonly rng: Rng,
    private readonly now: () => number,
  ) {}

  /** Adds an admission step for a kind; steps run in the order added. */
  admit<K extends Kind>(kind: K, step: Admission<ObjectOfKind[K]>): void {
    const steps = this.admissions.get(kind) ?? [];
    steps.push(step as unknown as Admission<KubeObject>);
    this.admissions.set(kind, steps);
  }

  /** Runs when an object of the kind is deleted (allocators give its addresses and ports back). */
  onRelease<K extends Kind>(kind: K, release: (object: ObjectOfKind[K]) => void): void {
    const list = this.releases.get(kind) ?? [];
    list.push(release as (object: KubeObject) => void);
    this.releases.set(kind, list);
  }

  /** Calls the handler for every change to objects of the kind, from now on. Returns the function that stops it. */
  watch<K extends Kind>(kind: K, handler: (event: WatchEvent<ObjectOfKind[K]>) => void): () => void {
    this.events.on(kind, handler);
    return () => this.events.off(kind, handler);
  }

  get<K extends Kind>(kind: K, namespace: string, name: string): ObjectOfKind[K] | undefined {
    return this.table(kind).get(objectKey(namespace, name)) as ObjectOfKind[K] | undefined;
  }

  /** Every object of the kind (in one namespace when given), in creation order. */
  list<K extends Kind>(kind: K, namespace?: string): ObjectOfKind[K][] {
    const all = [...this.table(kind).values()] as ObjectOfKind[K][];
    return namespace === undefined ? all : all.filter((object) => object.metadata.namespace === namespace);
  }

  /**
   * Every object of the kind in creation order, as one read-only array shared by every caller until the kind next
   * changes: kube-proxy on each of thousands of nodes lists the same Services and EndpointSlices per sync, and keeps
   * the list as its last synced state.
   */
  snapshot<K extends Kind>(kind: K): readonly ObjectOfKind[K][] {
    let shared = this.snapshots.get(kind);
    if (shared === undefined) {
      shared = Object.freeze([...this.table(kind).values()]);
      this.snapshots.set(kind, shared);
    }
    return shared as readonly ObjectOfKind[K][];
  }

  create<K extends Kind>(
    object: NewObject<ObjectOfKind[K]> & { readonly kind: K },
  ): ApiResult<ObjectOfKind[K]> {
    // A namespaced object without a namespace lands in `default`, as kubectl's request path puts it there.
    const namespace = object.metadata.namespace ?? (isNamespaced(object.kind) ? 'default' : '');
    const key = objectKey(namespace, object.metadata.name);
    if (this.table(object.kind).has(key)) {
      return apiError(
        409,
        'AlreadyExists',
        `${RESOURCE_NAMES[object.kind]} "${object.metadata.name}" already exists`,
      );
    }
    const metadata: ObjectMeta = {
      labels: {},
      annotations: {},
      ownerReferences: [],
      deletionTimestamp: undefined,
      ...object.metadata,
      namespace,
      uid: this.newUid(),
      resourceVersion: 0,
      creationTimestamp: this.now(),
    };
    const admitted = this.runAdmission({ ...object, metadata } as unknown as ObjectOfKind[K], undefined);
    if (!admitted.ok) return admitted;
    const stored = this.stamp(admitted.value);
    this.table(object.kind).set(key, stored);
    this.snapshots.delete(object.kind);
    this.events.emit(object.kind, { type: 'ADDED', object: stored });
    return { ok: true, value: stored };
  }

  /** Replaces an object; the store keeps its uid and creation time whatever the caller passes. */
  update<K extends Kind>(object: ObjectOfKind[K]): ApiResult<ObjectOfKind[K]> {
    const { kind } = object;
    const key = objectKey(object.metadata.namespace, object.metadata.name);
    const old = this.table(kind).get(key) as ObjectOfKind[K] | undefined;
    if (old === undefined) return notFound(kind, object.metadata.name);
    const kept = {
      ...object,
      metadata: {
        ...object.metadata,
        uid: old.metadata.uid,
        creationTimestamp: old.metadata.creationTimestamp,
      },
    } as ObjectOfKind[K];
    const admitted = this.runAdmission(kept, old);
    if (!admitted.ok) return admitted;
    const stored = this.stamp(admitted.value);
    this.table(kind).set(key, stored);
    this.snapshots.delete(kind);
    this.events.emit(kind, { type: 'MODIFIED', object: stored, old });
    return { ok: true, value: stored };
  }

  /** Removes an object at once (a graceful pod delete first updates deletionTimestamp, then deletes). */
  delete<K extends Kind>(kind: K, namespace: string, name: string): ApiResult<ObjectOfKind[K]> {
    const key = objectKey(namespace, name);
    const old = this.table(kind).get(key) as ObjectOfKind[K] | undefined;
    if (old === undefined) return notFound(kind, name);
    this.table(kind).delete(key);
    this.snapshots.delete(kind);
    for (const release of this.releases.get(kind) ?? []) release(old);
    this.events.emit(kind, { type: 'DELETED', object: old });
    return { ok: true, value: old };
  }

  /** Runs the kind's steps in order; a refusal undoes what the earlier steps reserved, last first. */
  private runAdmission<T extends KubeObject>(object: T, old: T | undefined): ApiResult<T> {
    let current = object;
    const reverts: (() => void)[] = [];
    for (const step of this.admissions.get(object.kind) ?? []) {
      const result = step(current, old) as ApiResult<T> | Admitted<T>;
      if (!result.ok) {
        for (const revert of reverts.reverse()) revert();
        return result;
      }
      if ('revert' in result) reverts.push(result.revert);
      current = result.value;
    }
    return { ok: true, value: current };
  }

  private stamp<T extends KubeObject>(object: T): T {
    this.revision += 1;
    return { ...object, metadata: { ...object.metadata, resourceVersion: this.revision } };
  }

  private table(kind: Kind): Map<string, KubeObject> {
    let table = this.objects.get(kind);
    if (table === undefined) {
      table = new Map();
      this.objects.set(kind, table);
    }
    return table;
  }

  /** A version-4-shaped UUID from the seed. */
  private newUid(): string {
    const hex = [...this.rng.bytes(16)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
    const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }
}

export function apiError(
  code: ApiError['code'],
  reason: ApiError['reason'],
  message: string,
): ApiResult<never> {
  return { ok: false, error: { code, reason, message } };
}

/** `Error from server (NotFound)`'s message: `pods "web" not found`. */
export function notFound(kind: Kind, name: string): ApiResult<never> {
  return apiError(404, 'NotFound', `${RESOURCE_NAMES[kind]} "${name}" not found`);
}

/** The API group of a kind ('' for core/v1), as qualified kinds and resources print it. */
export const API_GROUPS: Readonly<Record<Kind, string>> = {
  Node: '',
  Pod: '',
  Service: '',
  EndpointSlice: 'discovery.k8s.io',
  Deployment: 'apps',
  DaemonSet: 'apps',
};

/**
 * An Invalid refusal as the API server builds it (apimachinery errors.NewInvalid): Status.message is
 * `KIND[.GROUP] "NAME" is invalid: CAUSES`, where CAUSES are the field errors (each `FIELD: BODY`) printed as
 * utilerrors' aggregate does: duplicates dropped, one alone as is, several joined with ", " inside brackets.
 * kubectl prints it differently: see kubectlError.
 */
export function invalid(kind: Kind, name: string, causes: readonly string[]): ApiResult<never> {
  const unique = [...new Set(causes)];
  const detail = unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
  const group = API_GROUPS[kind];
  const qualified = group === '' ? kind : `${kind}.${group}`;
  return {
    ok: false,
    error: {
      code: 422,
      reason: 'Invalid',
      message: `${qualified} "${name}" is invalid: ${detail}`,
      details: {
        kind,
        name,
        causes: causes.map((cause) => {
          const at = cause.indexOf(': ');
          return at < 0
            ? { field: '', message: cause }
            : { field: cause.slice(0, at), message: cause.slice(at + 2) };
        }),
      },
    },
  };
}

/**
 * What kubectl writes on stderr for a refusal, with its final newline (mirrors kubectl's cmd/util/helpers.go:
 * checkErr, statusCausesToAggrError, MultilineError, StandardErrorMessage): an Invalid refusal is
 * `The Service "signalements" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already
 * allocated`, or with several causes the prefix alone on its line (its trailing space kept) and one `* CAUSE` line
 * each; any other refusal is `Error from server (REASON): MESSAGE`.
 */
export function kubectlError(error: ApiError): string {
  if (error.reason !== 'Invalid' || error.details === undefined) {
    return `Error from server (${error.reason}): ${error.message}\n`;
  }
  const { kind, name, causes } = error.details;
  const prefix = `The ${kind} "${name}" is invalid: `;
  const lines = [...new Set(causes.map((cause) => `${cause.field}: ${cause.message}`))];
  if (lines.length === 0) return `The ${kind} "${name}" is invalid\n`;
  if (lines.length === 1) return `${prefix}${lines[0]}\n`;
  return `${prefix}\n${lines.map((line) => `* ${line}\n`).join('')}`;
}

/** errors.NewInternalError: `Internal error occurred: DETAIL` (a full range, a taken healthCheckNodePort). */
export function internalError(detail: string): ApiResult<never> {
  return apiError(500, 'InternalError', `Internal error occurred: ${detail}`);
}
