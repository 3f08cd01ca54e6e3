// The Temporal SDK encodes and decodes its gRPC and core messages with protobufjs, which generates
// five functions per message type (encode, decode, verify, fromObject, toObject: `new Function` each)
// the first time any of them is used — while a sweep uses one or two per type (a request type is
// only encoded, an activation only decoded). Generated one by one on first use instead, a short
// sweep's start-up compiles a fraction of that code (the functions themselves are protobufjs's own).
// protobufjs 7/8 internals (Type#setup and its code generators); skipped if they are not there.
import { createRequire } from 'node:module';

type Generated = (...args: unknown[]) => unknown;
type Generator = (mtype: ProtoType) => (scope: Record<string, unknown>) => Generated;
interface ProtoType {
  fullName: string;
  root?: { _needsRecursiveFeatureResolution?: boolean; _edition?: string; _resolveFeaturesRecursive?: (edition: string) => void };
  _edition?: string;
  fieldsArray: { resolve(): { resolvedType: unknown } }[];
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
    const eager = Type.prototype.setup;
    if (typeof eager !== 'function' || [encoder, decoder, verifier, converter.fromObject, converter.toObject].some((f) => typeof f !== 'function')) return;
    Type.prototype.setup = function setup(this: ProtoType): ProtoType {
      // Types with hand-written wrappers (google.protobuf.Any, …) wrap the generated converters: as before.
      if (wrappers[this.fullName]) return eager.call(this);
      const root = this.root;
      if (root?._needsRecursiveFeatureResolution) {
        const edition = root._edition ?? this._edition;
        if (edition) root._resolveFeaturesRecursive?.(edition);
      }
      const types = this.fieldsArray.map((f) => f.resolve().resolvedType);
      const lazily = (method: string, generate: () => Generated) => {
        const stub = function (this: unknown, ...args: unknown[]) {
          const fn = generate();
          setupType[method] = fn;
          return fn.apply(this, args);
        };
        stubs.add(stub);
        this[method] = stub;
      };
      const setupType = this;
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
