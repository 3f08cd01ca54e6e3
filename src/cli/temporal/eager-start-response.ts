// `spica sweep` starts its run with eager start: the server puts the run's first workflow task in the
// StartWorkflowExecution response and the SDK's Rust core hands it to this process's worker. The SDK's
// JavaScript client then decodes the whole response only to ask whether that task is there
// (`eagerlyStarted`): its history reaches most history-event types, and their first decode generates
// their codecs (~18 ms of a 2-core box, on the start's critical path). Here a worker connection decodes
// that response without the task, which stays bytes and is decoded on first read: the same message,
// minus work nobody asked for. (The grpc-js `Connection` decodes through the message class instead and
// is not concerned: it never starts eagerly.)
import { createRequire } from 'node:module';

interface ProtoReader {
  pos: number;
  len: number;
  uint32(): number;
  bytes(): Uint8Array;
  skipType(wireType: number): unknown;
}
interface ProtoType {
  ctor: unknown;
  fields: Record<string, { id: number } | undefined>;
  decode(input: Uint8Array): Record<string, unknown>;
}

const LENGTH_DELIMITED = 2;

let installed = false;

/**
 * `buf` split into the occurrences of field `id` (a length-delimited message field, concatenated: a
 * repeated occurrence merges, as protobuf parsing would) and everything else; null when it is absent.
 */
export function splitField(buf: Uint8Array, id: number, reader: ProtoReader): { rest: Uint8Array; field: Uint8Array | null } {
  const rest: Uint8Array[] = [];
  const field: Uint8Array[] = [];
  let kept = 0;
  while (reader.pos < reader.len) {
    const at = reader.pos;
    const tag = reader.uint32();
    if (tag >>> 3 === id && (tag & 7) === LENGTH_DELIMITED) {
      field.push(reader.bytes());
      rest.push(buf.subarray(kept, at));
      kept = reader.pos;
    } else {
      reader.skipType(tag & 7);
    }
  }
  if (field.length === 0) return { rest: buf, field: null };
  rest.push(buf.subarray(kept));
  return { rest: Buffer.concat(rest), field: Buffer.concat(field) };
}

/** `decode()`'s object, decoded when something first reads, lists or sets a property of it. */
function decodedOnFirstRead(cls: { prototype: object }, decode: () => object): object {
  let decoded: object | undefined;
  const real = () => (decoded ??= decode());
  return new Proxy(Object.create(cls.prototype) as object, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    set: (_, key, value) => Reflect.set(real(), key, value),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(real(), key);
      return d && { ...d, configurable: true }; // a proxy may not report a property its target lacks as fixed
    },
  });
}

/** Makes worker connections decode the StartWorkflowExecution response's eager task on first read. */
export function decodeEagerStartTaskLazily(): void {
  if (installed) return;
  installed = true;
  try {
    const fromProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
    const proto = fromProto('@temporalio/proto') as {
      temporal: { api: { workflowservice: { v1: Record<string, unknown> } } };
    };
    const Reader = fromProto('protobufjs/src/reader') as { create(buf: Uint8Array): ProtoReader };
    const v1 = proto.temporal.api.workflowservice.v1;
    const service = v1.WorkflowService as { methods?: Record<string, { resolve(): { resolvedResponseType: ProtoType | null } } | undefined> };
    const method = service.methods?.StartWorkflowExecution?.resolve();
    const response = method?.resolvedResponseType;
    const taskType = v1.PollWorkflowTaskQueueResponse as ProtoType | undefined;
    const id = response?.fields.eagerWorkflowTask?.id;
    if (!method || !response || !taskType || typeof id !== 'number' || typeof Reader.create !== 'function') return;
    void response.ctor; // the message class exists before the view below inherits it
    const decode = (input: Uint8Array) => {
      const { rest, field } = splitField(input, id, Reader.create(input));
      const message = response.decode(rest);
      // A view that decodes the task on its first read: `eagerWorkflowTask != null` (all the client
      // asks) reads nothing, and `instanceof` sees the task's class.
      if (field !== null) message.eagerWorkflowTask = decodedOnFirstRead(taskType.ctor as { prototype: object }, () => taskType.decode(field));
      return message;
    };
    // NativeConnection#sendRequest decodes with `method.resolvedResponseType.decode`; the response type
    // otherwise stays itself (the message class, its name and fields, what the grpc-js path uses).
    method.resolvedResponseType = Object.create(response, { decode: { value: decode } }) as ProtoType;
  } catch {
    // Another SDK layout: the response is decoded whole, as the SDK does.
  }
}
