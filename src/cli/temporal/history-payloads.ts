// Sizes of the payloads a workflow's histories hold (every run, continue-as-new included): the
// figure Temporal's payload limits (2 MB hard, 256 KB warning) and history limits apply to. Used
// by the large-sweep test and `npm run bench temporal` to show no payload grows with the trial count.
import type { Client } from '@temporalio/client';

export interface PayloadFigures {
  /** Largest single payload (data + metadata bytes) and where it was. */
  largest: { bytes: number; workflowId: string; runId: string; eventType: string };
  /** Runs read, events in them, and the largest history (sum of its payload bytes). */
  runs: number;
  events: number;
  largestHistoryBytes: number;
  /** Largest single payload per event type (e.g. WorkflowExecutionContinuedAsNew: the carried state). */
  largestByType: Record<string, number>;
}

interface PayloadLike {
  data?: Uint8Array | null;
  metadata?: Record<string, Uint8Array | null | undefined> | null;
}

function payloadBytes(p: PayloadLike): number {
  let n = p.data?.length ?? 0;
  for (const [k, v] of Object.entries(p.metadata ?? {})) n += k.length + (v?.length ?? 0);
  return n;
}

/** Every payload below `node` (event attributes are plain decoded protobuf objects). */
function* payloadsIn(node: unknown): Generator<PayloadLike> {
  if (node === null || typeof node !== 'object' || node instanceof Uint8Array) return;
  if (Array.isArray(node)) {
    for (const x of node) yield* payloadsIn(x);
    return;
  }
  for (const [k, v] of Object.entries(node)) {
    if (k === 'payloads' && Array.isArray(v)) for (const p of v) yield p as PayloadLike;
    else yield* payloadsIn(v);
  }
}

// temporal.api.enums.v1.EventType numbers of the events that carry payloads (the proto package is
// not a direct dependency; numbers checked against @temporalio/proto's EventType).
const EVENT_TYPES: Record<number, string> = {
  1: 'WorkflowExecutionStarted',
  2: 'WorkflowExecutionCompleted',
  3: 'WorkflowExecutionFailed',
  10: 'ActivityTaskScheduled',
  12: 'ActivityTaskCompleted',
  13: 'ActivityTaskFailed',
  25: 'MarkerRecorded',
  26: 'WorkflowExecutionSignaled',
  28: 'WorkflowExecutionContinuedAsNew',
  29: 'StartChildWorkflowExecutionInitiated',
  32: 'ChildWorkflowExecutionCompleted',
  37: 'SignalExternalWorkflowExecutionInitiated',
};

function eventTypeName(t: unknown): string {
  return typeof t === 'number' ? (EVENT_TYPES[t] ?? `event type ${t}`) : String(t);
}

/** A run's events in small pages (a default page of a big history can pass gRPC's 4 MB message cap). */
export async function* historyEvents(client: Client, workflowId: string, runId: string) {
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId, runId },
      maximumPageSize: 50,
      nextPageToken,
    });
    yield* page.history?.events ?? [];
    nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken);
}

/** Payload figures over every run of each workflow id. */
export async function historyPayloads(client: Client, workflowIds: string[]): Promise<PayloadFigures> {
  const out: PayloadFigures = { largest: { bytes: 0, workflowId: '', runId: '', eventType: '' }, runs: 0, events: 0, largestHistoryBytes: 0, largestByType: {} };
  for (const workflowId of workflowIds) {
    for await (const exec of client.workflow.list({ query: `WorkflowId = '${workflowId.replace(/'/g, "\\'")}'` })) {
      out.runs += 1;
      let total = 0;
      for await (const event of historyEvents(client, workflowId, exec.runId)) {
        out.events += 1;
        for (const p of payloadsIn(event)) {
          const bytes = payloadBytes(p);
          total += bytes;
          const type = eventTypeName(event.eventType);
          if (bytes > out.largest.bytes) out.largest = { bytes, workflowId, runId: exec.runId, eventType: type };
          out.largestByType[type] = Math.max(out.largestByType[type] ?? 0, bytes);
        }
      }
      out.largestHistoryBytes = Math.max(out.largestHistoryBytes, total);
    }
  }
  return out;
}
