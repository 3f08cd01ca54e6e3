// The SDK's protobuf messages with features resolved per type and codecs generated one method at a
// time (src/cli/temporal/lazy-protobuf-codecs.ts): the same bytes and objects as protobufjs's own
// eager setup (whole-root feature resolution, all five codecs), which a copy of the root, used
// before the lazy setup is installed, gives as the reference.
import { createRequire } from 'node:module';
import { coresdk, google, temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { codecReady, installLazyProtobufCodecs } from '../../src/cli/temporal/lazy-protobuf-codecs.js';

interface Codec {
  fromObject(o: object): object;
  encode(m: object): { finish(): Uint8Array };
  decode(b: Uint8Array): object;
  toObject(m: object, opts?: object): object;
  verify(m: object): string | null;
  ctor: unknown;
  root: { toJSON(): object; lookupType(name: string): Codec };
}
const pb = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'))('protobufjs') as { Root: { fromJSON(j: object): Codec['root'] } };
const sdkType = (t: unknown) => t as Codec;

const Activation = 'coresdk.workflow_activation.WorkflowActivation';
const Completion = 'coresdk.workflow_completion.WorkflowActivationCompletion';
const StartRequest = 'temporal.api.workflowservice.v1.StartWorkflowExecutionRequest';
const DescribeQueue = 'temporal.api.workflowservice.v1.DescribeTaskQueueResponse';
const DescribeQueueRequest = 'temporal.api.workflowservice.v1.DescribeTaskQueueRequest';
const payload = (json: string) => ({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(json) });
const samples: Record<string, object> = {
  [Activation]: {
    runId: 'run-1',
    isReplaying: true,
    historyLength: 12,
    timestamp: { seconds: 1_800_000_000, nanos: 5 },
    jobs: [
      { initializeWorkflow: { workflowType: 'sweep', workflowId: 'w', randomnessSeed: '7', arguments: [payload('{"a":1}')], headers: { h: payload('1') } } },
      { resolveActivity: { seq: 3, result: { completed: { result: payload('[1,2]') } }, isLocal: true } },
      { queryWorkflow: { queryId: 'q', queryType: 'progress', arguments: [] } },
      { signalWorkflow: { signalName: 'branchProgress', input: [payload('{}'), payload('[]')] } },
      { notifyHasPatch: { patchId: 'p' } },
    ],
  },
  [Completion]: {
    runId: 'run-1',
    successful: {
      commands: [
        {
          scheduleLocalActivity: {
            seq: 4,
            activityId: '4',
            activityType: 'askAndMaterialize',
            arguments: [payload('{"x":[0.5,1]}')],
            startToCloseTimeout: { seconds: 30 },
            retryPolicy: { maximumAttempts: 5, initialInterval: { seconds: 1 }, backoffCoefficient: 2, nonRetryableErrorTypes: ['InputError'] },
          },
        },
        { startChildWorkflowExecution: { seq: 1, workflowId: 'w/branch-agg', workflowType: 'branchStudy', taskQueue: 'spica', input: [payload('{}')], parentClosePolicy: 2, workflowIdReusePolicy: 3, workflowTaskTimeout: { seconds: 30 } } },
        { upsertWorkflowSearchAttributes: { searchAttributes: { indexedFields: { SpicaModel: payload('"m"') } } } },
        { completeWorkflowExecution: { result: payload('{"ok":true}') } },
      ],
    },
  },
  [StartRequest]: {
    namespace: 'default',
    workflowId: 'spica-abc-7',
    workflowType: { name: 'sweep' },
    taskQueue: { name: 'spica', kind: 1 },
    input: { payloads: [payload('{"config":1}')] },
    workflowIdReusePolicy: 2,
    requestEagerExecution: true,
    memo: { fields: { k: payload('"v"') } },
    retryPolicy: { maximumAttempts: 1 },
  },
  // A repeated enum: packed in proto3, as the features say.
  [DescribeQueueRequest]: { namespace: 'default', taskQueue: { name: 'spica' }, taskQueueTypes: [1, 2], reportPollers: true },
  [DescribeQueue]: {
    pollers: [
      { identity: '123@host', lastAccessTime: { seconds: 1_800_000_000, nanos: 1 }, ratePerSecond: 100000 },
      { identity: '124@host', lastAccessTime: { seconds: 1_800_000_001 }, ratePerSecond: 5.5 },
    ],
  },
};
const asObject = { longs: String, enums: String, bytes: String, defaults: false };

// The reference: protobufjs's own setup on a copy of the SDK's root, used before the lazy one exists.
const referenceRoot = pb.Root.fromJSON(sdkType(temporal.api.workflowservice.v1.StartWorkflowExecutionRequest).root.toJSON());
const reference = new Map(
  Object.entries(samples).map(([name, sample]) => {
    const T = referenceRoot.lookupType(name);
    const bytes = T.encode(T.fromObject(sample)).finish();
    return [name, { bytes: Buffer.from(bytes).toString('hex'), object: T.toObject(T.decode(bytes), asObject) }];
  }),
);

installLazyProtobufCodecs();

const sdkTypes: Record<string, Codec> = {
  [Activation]: sdkType(coresdk.workflow_activation.WorkflowActivation),
  [Completion]: sdkType(coresdk.workflow_completion.WorkflowActivationCompletion),
  [StartRequest]: sdkType(temporal.api.workflowservice.v1.StartWorkflowExecutionRequest),
  [DescribeQueue]: sdkType(temporal.api.workflowservice.v1.DescribeTaskQueueResponse),
  [DescribeQueueRequest]: sdkType(temporal.api.workflowservice.v1.DescribeTaskQueueRequest),
};

describe('lazy protobuf codecs', () => {
  it('generates only the codec a message type is used with', () => {
    // A type nothing else in this file touches.
    const T = sdkType(temporal.api.workflowservice.v1.DescribeDeploymentRequest);
    const bytes = T.encode({ namespace: 'ns', deployment: { seriesName: 's', buildId: 'b' } }).finish();
    expect(codecReady(T, 'encode')).toBe(true);
    expect(codecReady(T, 'decode')).toBe(false);
    expect(codecReady(T, 'toObject')).toBe(false);
    const back = T.decode(bytes) as { namespace: string; deployment?: { buildId: string } };
    expect(codecReady(T, 'decode')).toBe(true);
    expect(back.namespace).toBe('ns');
    expect(back.deployment?.buildId).toBe('b');
    expect(T.toObject(back)).toEqual({ namespace: 'ns', deployment: { seriesName: 's', buildId: 'b' } });
    expect(T.verify({ namespace: 3 })).toMatch(/namespace/);
  });

  for (const name of Object.keys(samples)) {
    it(`${name}: the same bytes and decoded object as protobufjs's eager setup`, () => {
      const T = sdkTypes[name];
      const bytes = T.encode(T.fromObject(samples[name])).finish();
      expect(Buffer.from(bytes).toString('hex')).toBe(reference.get(name)!.bytes);
      expect(T.toObject(T.decode(bytes), asObject)).toEqual(reference.get(name)!.object);
    });
  }

  it('keeps the hand-written wrapper of google.protobuf.Any and the well-known Timestamp', () => {
    const ts = google.protobuf.Timestamp.fromObject({ seconds: 12, nanos: 5 });
    expect(Number(google.protobuf.Timestamp.decode(google.protobuf.Timestamp.encode(ts).finish()).seconds)).toBe(12);
    const any = google.protobuf.Any.fromObject({ type_url: 'type.googleapis.com/google.protobuf.Timestamp', value: google.protobuf.Timestamp.encode(ts).finish() });
    expect(google.protobuf.Any.decode(google.protobuf.Any.encode(any).finish()).type_url).toBe('type.googleapis.com/google.protobuf.Timestamp');
  });
});

describe('lazy rpc methods', () => {
  it('a service client resolves a method on its first call and sends what protobufjs would', async () => {
    type Rpc = (method: { name: string; resolvedRequestType: unknown }, data: Uint8Array, cb: (err: null, res: Uint8Array) => void) => void;
    const sent: { method: string; bytes: string }[] = [];
    const rpcImpl: Rpc = (method, data, cb) => {
      sent.push({ method: method.name, bytes: Buffer.from(data).toString('hex') });
      cb(null, sdkTypes[DescribeQueue].encode(sdkTypes[DescribeQueue].fromObject(samples[DescribeQueue])).finish());
    };
    const Service = temporal.api.workflowservice.v1.WorkflowService as unknown as { create(rpc: Rpc, a: boolean, b: boolean): Record<string, unknown> };
    const service = Service.create(rpcImpl, false, false);
    // Every method is there (listed, callable) but none was made yet: a getter until first read.
    expect(Object.keys(service)).toContain('describeTaskQueue');
    expect(typeof Object.getOwnPropertyDescriptor(service, 'describeTaskQueue')?.get).toBe('function');
    const call = service.describeTaskQueue as (req: object) => Promise<{ pollers: { identity: string }[] }>;
    expect(Object.getOwnPropertyDescriptor(service, 'describeTaskQueue')?.value).toBe(call);
    const res = await call.call(service, samples[DescribeQueueRequest]);
    expect(sent).toEqual([{ method: 'DescribeTaskQueue', bytes: reference.get(DescribeQueueRequest)!.bytes }]);
    expect(res.pollers.map((p) => p.identity)).toEqual(['123@host', '124@host']);
    expect(res).toBeInstanceOf(sdkTypes[DescribeQueue].ctor as new () => object);
    // Another client of the same service gets its own methods.
    expect(Service.create(rpcImpl, false, false).describeTaskQueue).not.toBe(call);
  });
});
