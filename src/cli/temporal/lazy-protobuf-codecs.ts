// The Temporal SDK encodes and decodes its gRPC and core messages with protobufjs, which, the first
// time a message type is used,
// - resolves the editions features of every object in the root (all ~2,000 Temporal message types,
//   fields and enums: ~14 ms), and
// - generates five functions for the type (encode, decode, verify, fromObject, toObject: `new
//   Function` each), while a sweep uses one or two per type (a request is only encoded, an
//   activation only decoded).
// Here a type's first use resolves only what its codecs read (the type and its ancestors, its oneofs
// and fields, the types its fields name) and each codec is generated on its own first use, with
// protobufjs's own generators: a short sweep's start-up compiles 103 functions instead of 335.
// Likewise a service's client (`WorkflowService.create`, three per connection) resolves each rpc
// method's request and response types and builds their message classes when that method is first
// called, not all ~120 at connect (~10-15 ms of a 2-core box).
// protobufjs 7/8 internals (Type#setup, _resolveFeatures, the code generators); skipped if they are
// not there, and any surprise in the per-type resolution falls back to protobufjs's whole-root one.
import { createRequire } from 'node:module';

type Generated = (...args: unknown[]) => unknown;
type Generator = (mtype: ProtoType) => (scope: Record<string, unknown>) => Generated;
interface Reflected {
  parent: Reflected | null;
  _edition?: string;
  _resolveFeatures(edition: string): unknown;
}
interface ProtoRoot extends Reflected {
  _needsRecursiveFeatureResolution?: boolean;
  _resolveFeaturesRecursive(edition: string): unknown;
}
interface ProtoType extends Reflected {
  fullName: string;
  root?: ProtoRoot;
  oneofsArray: Reflected[];
  fieldsArray: (Reflected & { resolve(): { resolvedType: Reflected | null } })[];
  ctor: unknown;
  [method: string]: unknown;
}

let installed = false;
const stubs = new WeakSet<object>();

/** Whether `type[method]` is a codec in place (generated, or eager) rather than a stub waiting for first use. */
export function codecReady(type: object, method: string): boolean {
  const fn = (type as Record<string, unknown>)[method];
  return typeof fn === 'function' && !stubs.has(fn);
}

/** Resolves `obj`'s features and its ancestors' (root first, as each inherits its parent's); its edition. */
function resolveChain(obj: Reflected, rootEdition: string): string {
  const chain: Reflected[] = [];
  for (let o: Reflected | null = obj; o; o = o.parent) chain.unshift(o);
  let edition = rootEdition;
  for (const o of chain) {
    edition = o._edition ?? edition;
    o._resolveFeatures(edition); // a no-op once resolved
  }
  return edition;
}

/**
 * What protobufjs's root-wide resolution gives the codecs of `type`, resolved for it alone: the
 * generators read the features of the type's fields (presence, packing, UTF-8 checks) and of the
 * enums they name (open or closed); a message type a field names resolves its own at its first use.
 */
function resolveTypeFeatures(type: ProtoType, root: ProtoRoot): void {
  const rootEdition = root._edition ?? type._edition;
  if (!rootEdition) return;
  try {
    const edition = resolveChain(type, rootEdition);
    for (const oneof of type.oneofsArray) oneof._resolveFeatures(edition); // before their fields
    for (const field of type.fieldsArray) {
      field._resolveFeatures(edition);
      const named = field.resolve().resolvedType;
      if (named) resolveChain(named, rootEdition);
    }
  } catch {
    root._resolveFeaturesRecursive(rootEdition);
  }
}

interface ProtoMethod {
  name: string;
  resolve(): ProtoMethod;
  resolvedRequestType: { ctor: unknown };
  resolvedResponseType: { ctor: unknown };
}
type ProtoService = { prototype: { create: (...args: unknown[]) => object; methodsArray: ProtoMethod[] } };
type RpcServiceClass = (new (...args: unknown[]) => object) & { prototype: { rpcCall(...args: unknown[]): unknown } };

/** A data property from now on (what protobufjs's create assigns). */
function settle(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Service#create with each rpc method made on its first read (protobufjs 7/8's own method body). */
function lazyRpcMethods(Service: ProtoService, rpc: RpcServiceClass, util: { lcFirst(s: string): string }): void {
  if (typeof Service?.prototype?.create !== 'function' || typeof rpc?.prototype?.rpcCall !== 'function' || typeof util.lcFirst !== 'function') return;
  Service.prototype.create = function create(this: ProtoService['prototype'], rpcImpl: unknown, requestDelimited: unknown, responseDelimited: unknown) {
    const service = new rpc(rpcImpl, requestDelimited, responseDelimited);
    for (const method of this.methodsArray) {
      const name = util.lcFirst(method.name).replace(/[^$\w_]/g, '');
      Object.defineProperty(service, name, {
        enumerable: true,
        configurable: true,
        get() {
          const m = method.resolve();
          const requestType = m.resolvedRequestType.ctor;
          const responseType = m.resolvedResponseType.ctor;
          const rpcMethod = function rpcMethod(this: object, request: unknown, callback: unknown) {
            return rpc.prototype.rpcCall.call(this, m, requestType, responseType, request, callback);
          };
          settle(service, name, rpcMethod);
          return rpcMethod;
        },
        set(value: unknown) {
          settle(service, name, value);
        },
      });
    }
    return service;
  };
}

export function installLazyProtobufCodecs(): void {
  if (installed) return;
  installed = true;
  try {
    const fromProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
    const pb = (m: string) => fromProto(`protobufjs/src/${m}`) as unknown;
    const Type = pb('type') as { prototype: { setup: (this: ProtoType) => ProtoType } };
    const encoder = pb('encoder') as Generator;
    const decoder = pb('decoder') as Generator;
    const verifier = pb('verifier') as Generator;
    const converter = pb('converter') as { fromObject: Generator; toObject: Generator };
    const wrappers = pb('wrappers') as Record<string, unknown>;
    const Reader = pb('reader');
    const Writer = pb('writer');
    const util = pb('util');
    lazyRpcMethods(pb('service') as ProtoService, pb('rpc/service') as RpcServiceClass, util as { lcFirst(s: string): string });
    const eager = Type.prototype.setup;
    if (typeof eager !== 'function' || [encoder, decoder, verifier, converter.fromObject, converter.toObject].some((f) => typeof f !== 'function')) return;
    Type.prototype.setup = function setup(this: ProtoType): ProtoType {
      const root = this.root;
      const wholeRootPending = root?._needsRecursiveFeatureResolution === true;
      if (root && wholeRootPending) resolveTypeFeatures(this, root);
      // Types with hand-written wrappers (google.protobuf.Any) wrap the generated converters: protobufjs's
      // own setup, told the features it reads are in place.
      if (wrappers[this.fullName]) {
        if (root && wholeRootPending) root._needsRecursiveFeatureResolution = false;
        try {
          return eager.call(this);
        } finally {
          if (root && wholeRootPending) root._needsRecursiveFeatureResolution = true;
        }
      }
      const types = this.fieldsArray.map((f) => f.resolve().resolvedType);
      const setupType = this;
      const lazily = (method: string, generate: () => Generated) => {
        const stub = function (this: unknown, ...args: unknown[]) {
          const fn = generate();
          setupType[method] = fn;
          return fn.apply(this, args);
        };
        stubs.add(stub);
        this[method] = stub;
      };
      lazily('encode', () => encoder(setupType)({ Writer, types, util }));
      lazily('decode', () => decoder(setupType)({ Reader, types, util, C: setupType.ctor }));
      lazily('verify', () => verifier(setupType)({ types, util }));
      lazily('fromObject', () => converter.fromObject(setupType)({ types, util, C: setupType.ctor }));
      lazily('toObject', () => converter.toObject(setupType)({ types, util }));
      return this;
    };
  } catch {
    // Another protobufjs layout: the SDK keeps its own eager setup.
  }
}
