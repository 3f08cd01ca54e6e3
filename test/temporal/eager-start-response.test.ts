// The StartWorkflowExecution response decoded without its eager workflow task, which is decoded on
// first read (src/cli/temporal/eager-start-response.ts): the same message as protobufjs decodes whole,
// and `spica sweep`'s start is still eager against the real server.
import { createRequire } from 'node:module';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { connectWorker } from '../../src/cli/temporal/worker-connection.js';
import { decodeEagerStartTaskLazily, splitField } from '../../src/cli/temporal/eager-start-response.js';
import { codecReady, installLazyProtobufCodecs } from '../../src/cli/temporal/lazy-protobuf-codecs.js';
import { createSpicaWorker } from '../../src/cli/temporal/worker.js';
import { parseConfigText } from '../../src/config/load.js';
import type { sweep } from '../../workflows/sweep.js';
import { SMALL_CONFIG_YAML, uniqueTaskQueue, useTestTemporal } from './harness.js';

interface Codec {
  fromObject(o: object): object;
  encode(m: object): { finish(): Uint8Array };
  decode(b: Uint8Array): Record<string, unknown>;
  toObject(m: object, opts?: object): Record<string, unknown>;
  ctor: new () => object;
  root: { toJSON(): object; lookupType(name: string): Codec };
}
const protobufjs = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
const pb = protobufjs('protobufjs') as { Root: { fromJSON(j: object): Codec['root'] }; Reader: { create(b: Uint8Array): never } };
const v1 = temporal.api.workflowservice.v1;
const Response = v1.StartWorkflowExecutionResponse as unknown as Codec;
const Task = v1.PollWorkflowTaskQueueResponse as unknown as Codec;
const method = (v1.WorkflowService as unknown as { methods: Record<string, { resolve(): { resolvedResponseType: Codec } }> }).methods.StartWorkflowExecution;
// Whether the type's decoder was generated (a type never set up has only the prototype's setup trampoline).
const decoderMade = (T: Codec) => Object.hasOwn(T, 'decode') && codecReady(T, 'decode');
const asObject = { longs: String, enums: String, bytes: String, defaults: false };

const sample = {
  runId: 'run-7',
  started: true,
  status: 1,
  eagerWorkflowTask: {
    taskToken: Buffer.from('token'),
    workflowExecution: { workflowId: 'spica-abc-7', runId: 'run-7' },
    workflowType: { name: 'sweep' },
    history: {
      events: [
        { eventId: 1, eventType: 1, workflowExecutionStartedEventAttributes: { workflowType: { name: 'sweep' }, taskQueue: { name: 'spica' }, attempt: 1 } },
        { eventId: 2, eventType: 5, workflowTaskScheduledEventAttributes: { taskQueue: { name: 'spica' }, attempt: 1 } },
      ],
    },
  },
  link: { workflowEvent: { namespace: 'default', workflowId: 'spica-abc-7', runId: 'run-7' } },
};

// The reference: protobufjs on a copy of the root, decoding the whole response.
const referenceType = pb.Root.fromJSON(Response.root.toJSON()).lookupType('temporal.api.workflowservice.v1.StartWorkflowExecutionResponse');
const bytes = referenceType.encode(referenceType.fromObject(sample)).finish();
const reference = referenceType.toObject(referenceType.decode(bytes), asObject);

// As a worker connection installs them (connectWorker): codecs made on first use, so a test can see which were.
installLazyProtobufCodecs();
decodeEagerStartTaskLazily();

describe('eager start response', () => {
  it('decodes the same message and leaves the eager task undecoded until read', () => {
    const decoded = method.resolve().resolvedResponseType.decode(Buffer.from(bytes));
    expect(decoded).toBeInstanceOf(Response.ctor);
    expect(decoded.runId).toBe('run-7');
    expect(decoded.eagerWorkflowTask != null).toBe(true); // what the client asks: nothing decoded yet
    expect(decoderMade(Task)).toBe(false);
    expect(decoded.eagerWorkflowTask).toBeInstanceOf(Task.ctor);
    expect(decoderMade(Task)).toBe(false);
    expect(Response.toObject(decoded, asObject)).toEqual(reference);
    expect(decoderMade(Task)).toBe(true);
  });

  it('without an eager task the field is absent, as protobufjs leaves it', () => {
    const plain = referenceType.encode(referenceType.fromObject({ runId: 'run-8', started: true })).finish();
    const decoded = method.resolve().resolvedResponseType.decode(Buffer.from(plain));
    expect(decoded.runId).toBe('run-8');
    expect(decoded.eagerWorkflowTask).toBeNull();
  });

  it('splitField: every occurrence of the field, concatenated (protobuf merges them), the rest in order', () => {
    const one = Task.encode(Task.fromObject({ workflowType: { name: 'a' } })).finish();
    const two = Task.encode(Task.fromObject({ attempt: 3 })).finish();
    const wire = (id: number, body: Uint8Array) => Buffer.concat([Buffer.from([(id << 3) | 2, body.length]), body]);
    const runId = Buffer.concat([Buffer.from([(1 << 3) | 2, 2]), Buffer.from('r9')]);
    const buf = Buffer.concat([wire(2, one), runId, wire(2, two)]);
    const { rest, field } = splitField(buf, 2, pb.Reader.create(buf));
    expect(Buffer.from(rest).equals(runId)).toBe(true);
    expect(Task.toObject(Task.decode(field!), asObject)).toEqual({ workflowType: { name: 'a' }, attempt: 3 });
    expect(splitField(runId, 2, pb.Reader.create(runId))).toEqual({ rest: runId, field: null });
  });
});

describe('spica sweep start against the server', () => {
  const t = useTestTemporal();

  it('is still eager: the run starts with its first workflow task in the response', async () => {
    const taskQueue = uniqueTaskQueue('eager');
    const connection = await connectWorker(t.address);
    const spica = await createSpicaWorker({ address: t.address, namespace: t.namespace, taskQueue, workflowsOnMainThread: true, wavesHere: true, connection });
    try {
      const client = new Client({ connection, namespace: t.namespace });
      const handle = await client.workflow.start<typeof sweep>('sweep', {
        workflowId: `eager-${taskQueue}`,
        taskQueue,
        args: [parseConfigText(SMALL_CONFIG_YAML)],
        requestEagerStart: true,
      });
      expect((handle as { eagerlyStarted?: boolean }).eagerlyStarted).toBe(true);
      await spica.worker.runUntil(handle.result());
    } finally {
      await spica.close();
      await connection.close();
    }
  });
});
