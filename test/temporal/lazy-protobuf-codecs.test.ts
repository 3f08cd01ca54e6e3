// The SDK's protobuf messages with codecs generated one method at a time (src/cli/temporal/lazy-protobuf-codecs.ts).
import { coresdk, google, temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { codecReady, installLazyProtobufCodecs } from '../../src/cli/temporal/lazy-protobuf-codecs.js';

installLazyProtobufCodecs();

const generated = codecReady;

describe('lazy protobuf codecs', () => {
  it('generates only the codec a message type is used with', () => {
    // A type nothing else in this process touches.
    const T = temporal.api.workflowservice.v1.DescribeDeploymentRequest;
    const bytes = T.encode({ namespace: 'ns', deployment: { seriesName: 's', buildId: 'b' } }).finish();
    expect(generated(T, 'encode')).toBe(true);
    expect(generated(T, 'decode')).toBe(false);
    expect(generated(T, 'toObject')).toBe(false);
    const back = T.decode(bytes);
    expect(generated(T, 'decode')).toBe(true);
    expect(back.namespace).toBe('ns');
    expect(back.deployment?.buildId).toBe('b');
    expect(T.toObject(back)).toEqual({ namespace: 'ns', deployment: { seriesName: 's', buildId: 'b' } });
    expect((T as unknown as { verify(m: object): string | null }).verify({ namespace: 3 })).toMatch(/namespace/);
  });

  it('round-trips a workflow activation and completion as the worker codes them', () => {
    const A = coresdk.workflow_activation.WorkflowActivation;
    const activation = A.fromObject({
      runId: 'run-1',
      isReplaying: false,
      historyLength: 3,
      jobs: [{ initializeWorkflow: { workflowType: 'sweep', workflowId: 'w', randomnessSeed: '7', arguments: [{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"a":1}') }] } }],
    });
    const decoded = A.decode(A.encode(activation).finish());
    expect(decoded.runId).toBe('run-1');
    expect(decoded.jobs[0].initializeWorkflow?.workflowType).toBe('sweep');
    expect(Buffer.from(decoded.jobs[0].initializeWorkflow!.arguments![0].data!).toString()).toBe('{"a":1}');
    expect(Number(decoded.jobs[0].initializeWorkflow?.randomnessSeed)).toBe(7);
    const C = coresdk.workflow_completion.WorkflowActivationCompletion;
    const completion = C.decode(C.encodeDelimited({ runId: 'run-1', successful: { commands: [{ completeWorkflowExecution: {} }] } }).finish().subarray(1));
    expect(completion.successful?.commands?.[0].completeWorkflowExecution).toBeTruthy();
  });

  it('keeps the hand-written wrappers of well-known types (google.protobuf.Timestamp, Any)', () => {
    const ts = google.protobuf.Timestamp.fromObject({ seconds: 12, nanos: 5 });
    expect(Number(google.protobuf.Timestamp.decode(google.protobuf.Timestamp.encode(ts).finish()).seconds)).toBe(12);
    const any = google.protobuf.Any.fromObject({ type_url: 'type.googleapis.com/google.protobuf.Timestamp', value: google.protobuf.Timestamp.encode(ts).finish() });
    expect(google.protobuf.Any.decode(google.protobuf.Any.encode(any).finish()).type_url).toBe('type.googleapis.com/google.protobuf.Timestamp');
  });
});
