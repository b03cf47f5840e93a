// What the nft parser produces: commands with the locations errors point at, rules already compiled to IR
// expressions, and set elements still as written (their types are known only once the set is found).

import type { BaseChainSpec, ChainType, DataType, Expr, HookName, NamedObjectType, Verdict } from '../ir.ts';
import type { Location } from './location.ts';
import type { ObjectDef } from './objects.ts';
import type { NftType } from './types.ts';
import type { RawValue } from './values.ts';

/** Families nft knows; only ip and inet are modelled, the others fail when a command uses them. */
export type NftFamily = 'ip' | 'inet' | 'ip6' | 'arp' | 'bridge' | 'netdev';

export interface Named {
  readonly name: string;
  readonly loc: Location;
}

/** A rule's statements compiled to IR, and what must be checked against the ruleset when it is added. */
export interface ParsedRule {
  readonly exprs: readonly Expr[];
  readonly comment: string | undefined;
  readonly packets: number;
  readonly bytes: number;
  /** Chains named by jump/goto, with where they were written. */
  readonly chainRefs: readonly Named[];
  /** Named sets used by `@name`, with the key types of the expression that looks them up. */
  readonly setRefs: readonly (Named & {
    readonly types: readonly NftType[];
    readonly map: boolean;
    readonly lhs: Location;
    /** Set statements (`update @s { ... }`): the whole statement, where the kernel's errors point. */
    readonly stmt?: Location | undefined;
  })[];
  /** NAT and reject statements, whose chain type and hook the kernel validates. */
  readonly natStatements: readonly { readonly type: 'snat' | 'dnat' | 'masquerade' | 'redirect' }[];
  readonly rejects: number;
  /** Flowtables named by `flow add @ft`, which the kernel looks up in the rule's table (ENOENT). */
  readonly flowtableRefs?: readonly Named[];
  /** Named counters, quotas and limits the rule names (`counter name c1`), looked up in its table (ENOENT). */
  readonly objectRefs?: readonly (Named & { readonly type: NamedObjectType })[];
  readonly loc: Location;
}

export interface RawElement {
  readonly key: RawValue;
  readonly data: RawVerdict | RawValue | undefined;
  readonly loc: Location;
  /** `comment "..."` after the key. */
  readonly comment?: string | undefined;
  /** `timeout 5s` after the key, in ms. */
  readonly timeout?: number | undefined;
  /** `expires 5s` after the key, in ms: the time it has left. */
  readonly expires?: number | undefined;
  /** `counter [packets N bytes M]` after the key. */
  readonly counter?: { readonly packets: number; readonly bytes: number } | undefined;
}

export interface RawVerdict {
  readonly kind: 'verdict';
  readonly verdict: Verdict;
  readonly chain: Named | undefined;
  readonly loc: Location;
}

export interface ChainDef {
  readonly name: Named;
  readonly spec: BaseChainSpec | undefined;
  readonly comment: string | undefined;
  readonly rules: readonly ParsedRule[];
  readonly loc: Location;
}

/** `flowtable NAME { hook ingress priority P; devices = { ... }; [counter] }`. */
export interface FlowtableDef {
  readonly name: Named;
  readonly priority: number;
  readonly devices: readonly string[];
  readonly counter: boolean;
  readonly loc: Location;
}

export interface SetDef {
  readonly name: Named;
  readonly map: boolean;
  readonly keyType: readonly DataType[];
  readonly dataType: DataType | undefined;
  readonly flags: readonly ('interval' | 'constant' | 'timeout' | 'dynamic')[];
  readonly elements: readonly RawElement[];
  readonly comment: string | undefined;
  /** `timeout 3h`, in ms. */
  readonly timeout?: number | undefined;
  /** `size N`. */
  readonly size?: number | undefined;
  readonly policy?: 'memory' | undefined;
  /** `gc-interval 10s`, in ms. */
  readonly gcInterval?: number | undefined;
  readonly autoMerge?: boolean | undefined;
  readonly counter?: boolean | undefined;
  readonly typeofText?: { readonly key: string; readonly data: string | undefined } | undefined;
  readonly loc: Location;
}

export interface TableRef {
  readonly family: NftFamily;
  readonly familyLoc: Location | undefined;
  readonly table: Named;
}

export type Command =
  | {
      readonly kind: 'add-table';
      readonly exclusive: boolean;
      readonly ref: TableRef;
      readonly comment: string | undefined;
      readonly chains: readonly ChainDef[];
      readonly sets: readonly SetDef[];
      /** `flowtable NAME { ... }` items of the block. */
      readonly flowtables?: readonly FlowtableDef[];
      /** `counter|quota|limit NAME { ... }` items of the block (objects.ts). */
      readonly objects?: readonly ObjectDef[];
      readonly loc: Location;
    }
  | {
      readonly kind: 'add-object';
      readonly exclusive: boolean;
      readonly ref: TableRef;
      readonly object: ObjectDef;
      readonly loc: Location;
    }
  | {
      readonly kind: 'delete-object';
      readonly ref: TableRef;
      readonly type: NamedObjectType;
      /** The object by name, or by `handle N`. */
      readonly name: Named | undefined;
      readonly handle: { readonly value: number; readonly loc: Location } | undefined;
      readonly loc: Location;
    }
  | {
      readonly kind: 'list-object' | 'reset-object';
      readonly ref: TableRef;
      readonly type: NamedObjectType;
      readonly name: Named;
      readonly loc: Location;
    }
  | {
      /** `list|reset counters|quotas|limits [FAMILY | table [FAMILY] T]`. */
      readonly kind: 'list-objects' | 'reset-objects';
      readonly type: NamedObjectType;
      readonly family: NftFamily | undefined;
      readonly table: TableRef | undefined;
      readonly loc: Location;
    }
  | {
      readonly kind: 'add-flowtable';
      readonly exclusive: boolean;
      readonly ref: TableRef;
      readonly flowtable: FlowtableDef;
      readonly loc: Location;
    }
  | {
      readonly kind: 'delete-flowtable' | 'list-flowtable';
      readonly ref: TableRef;
      readonly flowtable: Named;
      readonly loc: Location;
    }
  | {
      readonly kind: 'delete-table' | 'flush-table' | 'list-table';
      readonly ref: TableRef;
      readonly loc: Location;
    }
  | {
      readonly kind: 'add-chain';
      readonly exclusive: boolean;
      readonly ref: TableRef;
      readonly chain: ChainDef;
      readonly loc: Location;
    }
  | {
      readonly kind: 'delete-chain' | 'flush-chain' | 'list-chain';
      readonly ref: TableRef;
      readonly chain: Named;
      readonly loc: Location;
    }
  | {
      readonly kind: 'add-rule';
      readonly mode: 'add' | 'insert' | 'replace';
      readonly ref: TableRef;
      readonly chain: Named;
      readonly handle: { readonly value: number; readonly loc: Location } | undefined;
      readonly rule: ParsedRule;
      readonly loc: Location;
    }
  | {
      readonly kind: 'delete-rule';
      readonly ref: TableRef;
      readonly chain: Named;
      readonly handle: { readonly value: number; readonly loc: Location };
      readonly loc: Location;
    }
  | {
      readonly kind: 'add-set';
      readonly exclusive: boolean;
      readonly ref: TableRef;
      readonly set: SetDef;
      readonly loc: Location;
    }
  | {
      readonly kind: 'delete-set' | 'flush-set' | 'list-set';
      readonly map: boolean;
      readonly ref: TableRef;
      readonly set: Named;
      readonly loc: Location;
    }
  | {
      readonly kind: 'add-element' | 'create-element' | 'delete-element';
      readonly ref: TableRef;
      readonly set: Named;
      readonly elements: readonly RawElement[];
      readonly loc: Location;
    }
  | {
      readonly kind: 'get-element';
      readonly ref: TableRef;
      readonly set: Named;
      readonly elements: readonly RawElement[];
      readonly loc: Location;
    }
  | {
      readonly kind: 'flush-ruleset' | 'list-ruleset';
      readonly family: NftFamily | undefined;
      readonly loc: Location;
    }
  | {
      readonly kind: 'list-tables' | 'list-chains' | 'list-sets' | 'list-maps' | 'list-flowtables';
      readonly family: NftFamily | undefined;
      readonly loc: Location;
    };

export type { ChainType, HookName };
