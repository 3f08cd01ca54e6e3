// Reading a fetched workflow history's local-activity markers (tests and `npm run bench temporal`):
// which activity a marker records and what it returned.
import type { WorkflowHandle } from '@temporalio/client';

/** One event of a workflow history as the client fetches it. */
export type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

type PayloadBytes = { data?: Uint8Array | null } | null | undefined;

const decode = (p: PayloadBytes): unknown => {
  if (!p?.data) return null;
  try {
    return JSON.parse(Buffer.from(p.data).toString()) as unknown;
  } catch {
    return null;
  }
};

/** A local-activity marker's activity type and result, or null for other events. */
export function localActivityMarker(e: HistoryEvent): { type: string | null; result: unknown } | null {
  const m = e.markerRecordedEventAttributes;
  if (m?.markerName !== 'core_local_activity') return null;
  const data = decode(m.details?.data?.payloads?.[0]) as { activity_type?: string } | null;
  return { type: data?.activity_type ?? null, result: decode(m.details?.result?.payloads?.[0]) };
}

/** The activity type a local-activity marker records, or null for other events. */
export function localActivityType(e: HistoryEvent): string | null {
  return localActivityMarker(e)?.type ?? null;
}
