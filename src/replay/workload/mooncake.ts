// Mooncake JSONL traces (dynamo-facts §2): one request per line — `timestamp` (ms, optional),
// `input_length` (optional, clamped to len(hash_ids) × trace_block_size), `output_length`, `hash_ids`,
// optional `session_id`, `delay` (think time before a later turn), `request_id`, `priority`,
// `output_token_ids`. Pure: parsing takes the file's text; trace-file.ts does the reading.
import { InputError } from '../../errors.js';
import type { PromptContent, SessionSpec, WorkloadPlan } from './request.js';

export interface MooncakeRow {
  /** 1-based line number in the file (for error messages). */
  line: number;
  timestampMs: number | null;
  inputLength: number;
  outputLength: number;
  hashIds: number[];
  sessionId: string | null;
  delayMs: number | null;
}

export class TraceFormatError extends InputError {}

/** Parses and validates every line (other fields are ignored); a bad line is an InputError naming its line number and the problem. */
export function parseMooncake(text: string, traceBlockSize: number, source = 'trace'): MooncakeRow[] {
  const rows: MooncakeRow[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === '') continue;
    const line = i + 1;
    const bad = (what: string): never => {
      throw new TraceFormatError(`${source}:${line}: ${what}`);
    };
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (e) {
      bad(`not valid JSON (${(e as Error).message})`);
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) bad('expected a JSON object per line');
    const o = obj as Record<string, unknown>;
    const hashIds = o.hash_ids;
    if (!Array.isArray(hashIds)) bad(`'hash_ids' is required and must be a list of integers`);
    const ids = hashIds as unknown[];
    for (let k = 0; k < ids.length; k++)
      if (typeof ids[k] !== 'number' || !Number.isSafeInteger(ids[k]) || (ids[k] as number) < 0)
        bad(`hash_ids[${k}] is ${JSON.stringify(ids[k])}, expected a non-negative integer`);
    const out = o.output_length;
    if (typeof out !== 'number' || !Number.isInteger(out) || out < 0) bad(`'output_length' is required and must be a non-negative integer (got ${JSON.stringify(out)})`);
    const maxIn = ids.length * traceBlockSize;
    let input = maxIn;
    if (o.input_length !== undefined) {
      const v = o.input_length;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) bad(`'input_length' must be a non-negative integer (got ${JSON.stringify(v)})`);
      input = Math.min(v as number, maxIn);
    }
    if (input < 1) bad(`the prompt is empty (input_length ${String(o.input_length ?? 0)}, ${ids.length} hash_ids)`);
    let ts: number | null = null;
    if (o.timestamp !== undefined) {
      if (typeof o.timestamp !== 'number' || !Number.isFinite(o.timestamp) || o.timestamp < 0) bad(`'timestamp' must be a non-negative number of ms (got ${JSON.stringify(o.timestamp)})`);
      ts = o.timestamp as number;
    }
    let delay: number | null = null;
    if (o.delay !== undefined) {
      if (typeof o.delay !== 'number' || !Number.isFinite(o.delay) || o.delay < 0) bad(`'delay' must be a non-negative number of ms (got ${JSON.stringify(o.delay)})`);
      delay = o.delay as number;
    }
    let session: string | null = null;
    if (o.session_id !== undefined && o.session_id !== null) {
      if (typeof o.session_id !== 'string' && typeof o.session_id !== 'number') bad(`'session_id' must be a string or number`);
      session = String(o.session_id);
    }
    rows.push({ line, timestampMs: ts, inputLength: input, outputLength: Math.max(1, out as number), hashIds: ids as number[], sessionId: session, delayMs: delay });
  }
  if (rows.length === 0) throw new TraceFormatError(`${source}: the trace has no requests`);
  return rows;
}

export interface TraceReplayOptions {
  traceBlockSize: number;
  /** >1 replays faster: divides inter-arrival gaps. */
  arrivalSpeedupRatio: number;
  /** Closed loop over sessions when set (timestamps ignored). */
  replayConcurrency: number | null;
}

/**
 * Sessions from rows: rows sharing a session_id are that session's turns in file order; other rows are
 * one-turn sessions. Timestamps are shifted so the first request arrives at 0 and gaps are divided by
 * the speed-up. A later turn arrives `delay` ms after the previous turn completes; without `delay`, the
 * (scaled) timestamp gap between the two turns is taken as the think time.
 */
export function mooncakePlan(rows: MooncakeRow[], opts: TraceReplayOptions): WorkloadPlan {
  const t0 = rows[0].timestampMs ?? 0;
  let lastTs = t0;
  const scaled = rows.map((r) => {
    const ts = r.timestampMs ?? lastTs;
    lastTs = ts;
    return Math.max(0, ts - t0) / opts.arrivalSpeedupRatio;
  });
  const sessions: SessionSpec[] = [];
  const bySession = new Map<string, { spec: SessionSpec; lastArrival: number }>();
  rows.forEach((r, i) => {
    const prompt: PromptContent = { keys: r.hashIds, lens: r.hashIds.map(() => opts.traceBlockSize) };
    const at = scaled[i];
    const open = bySession.get(r.sessionId ?? '');
    if (r.sessionId !== null && open) {
      const delay = r.delayMs !== null ? r.delayMs / opts.arrivalSpeedupRatio : Math.max(0, at - open.lastArrival);
      open.spec.turns.push({ isl: r.inputLength, osl: r.outputLength, prompt, delayMs: delay });
      open.lastArrival = at;
      return;
    }
    const spec: SessionSpec = { startMs: opts.replayConcurrency === null ? at : null, turns: [{ isl: r.inputLength, osl: r.outputLength, prompt, delayMs: 0 }] };
    sessions.push(spec);
    if (r.sessionId !== null) bySession.set(r.sessionId, { spec, lastArrival: at });
  });
  return { sessions, concurrency: opts.replayConcurrency, numRequests: rows.length };
}
