// A pool of worker threads running replays, so the activity thread stays free to heartbeat and a
// runaway replay can be killed. One runner per thread, reused; a replay past its time limit has its
// thread terminated and replaced (outcome `runtime_timeout`); a crashed or out-of-memory thread
// fails only its own candidate (`replay_runtime`).
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { canonicalJson } from '../src/config/canonical-json.js';
import type { MaterializedCandidate } from '../src/search/study/materialize.js';
import type { EvalOutcome } from '../src/search/trial.js';
import type { ThreadTask } from './replay-thread.js';

const THREAD_ENTRY = new URL('./replay-thread.mjs', import.meta.url);

export interface ReplayPoolOptions {
  /** Threads (default: the machine's cores, CLARIFICATIONS §D). */
  size?: number;
  /** Heap cap per thread in MB (default SPICA_REPLAY_HEAP_MB, else 4096); exceeding it fails that candidate. */
  maxHeapMb?: number;
}

export interface ReplayJob {
  ctx: ThreadTask['ctx'];
  candidate: MaterializedCandidate;
  /** max_eval_seconds; null = no limit. Counted from when a thread picks the job up. */
  timeoutSeconds: number | null;
}

export interface ReplayPoolStats {
  size: number;
  threads: number;
  busy: number;
  queued: number;
  /** Replays that ran to an outcome on a thread (any status). */
  completed: number;
  timedOut: number;
  crashed: number;
}

interface Pending {
  job: ReplayJob;
  resolve: (o: EvalOutcome) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  /** The thread finished booting; jobs (and their time limits) start only on ready threads. */
  ready: boolean;
  running: (Pending & { id: number; timer?: NodeJS.Timeout }) | null;
}

/** Test hooks, honoured only with SPICA_TEST_HOOKS=1 (documented in the report and worker usage). */
function testHooks(candidate: MaterializedCandidate): Pick<ThreadTask, 'hang' | 'exhaustMemory'> {
  if (process.env.SPICA_TEST_HOOKS !== '1' || !candidate.candidate) return {};
  const key = canonicalJson(candidate.candidate);
  const hang = process.env.SPICA_TEST_HANG_MATCH;
  const oom = process.env.SPICA_TEST_OOM_MATCH;
  return { hang: !!hang && key.includes(hang), exhaustMemory: !!oom && key.includes(oom) };
}

export function defaultPoolSize(): number {
  return Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
}

export class ReplayPool {
  readonly size: number;
  private readonly maxHeapMb: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  private counters = { completed: 0, timedOut: 0, crashed: 0 };

  constructor(opts: ReplayPoolOptions = {}) {
    this.size = Math.max(1, Math.floor(opts.size ?? defaultPoolSize()));
    const fromEnv = Number(process.env.SPICA_REPLAY_HEAP_MB);
    this.maxHeapMb = opts.maxHeapMb ?? (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : 4096);
  }

  /** Runs one replay; never rejects (every failure is an outcome). */
  run(job: ReplayJob, signal?: AbortSignal): Promise<EvalOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, reason_category: 'replay_runtime', reason: 'replay pool is closed' });
    return new Promise((resolve) => {
      const p: Pending = { job, resolve, signal };
      if (signal) {
        if (signal.aborted) return resolve({ ok: false, reason_category: 'replay_runtime', reason: 'cancelled' });
        p.onAbort = () => this.abort(p);
        signal.addEventListener('abort', p.onAbort, { once: true });
      }
      this.queue.push(p);
      this.pump();
    });
  }

  stats(): ReplayPoolStats {
    return {
      size: this.size,
      threads: this.slots.length,
      busy: this.slots.filter((s) => s.running).length,
      queued: this.queue.length,
      ...this.counters,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) this.settle(p, { ok: false, reason_category: 'replay_runtime', reason: 'replay pool closed' });
    const slots = this.slots.splice(0);
    for (const s of slots) if (s.running) this.settle(s.running, { ok: false, reason_category: 'replay_runtime', reason: 'replay pool closed' });
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private settle(p: Pending, outcome: EvalOutcome): void {
    if (p.signal && p.onAbort) p.signal.removeEventListener('abort', p.onAbort);
    p.resolve(outcome);
  }

  private abort(p: Pending): void {
    const qi = this.queue.indexOf(p);
    if (qi >= 0) {
      this.queue.splice(qi, 1);
      this.settle(p, { ok: false, reason_category: 'replay_runtime', reason: 'cancelled' });
      return;
    }
    const slot = this.slots.find((s) => s.running === p || (s.running && s.running.resolve === p.resolve));
    if (slot?.running) this.retire(slot, { ok: false, reason_category: 'replay_runtime', reason: 'cancelled' });
  }

  private spawn(): Slot {
    const worker = new Worker(THREAD_ENTRY, {
      resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb },
      // The hooks are decided here, not in the thread: keep the thread's env minimal and fixed.
      stdout: false,
      stderr: false,
    });
    const slot: Slot = { worker, ready: false, running: null };
    worker.on('message', (msg: { id: number; outcome: EvalOutcome } | { ready: true }) => {
      if ('ready' in msg) {
        slot.ready = true;
        this.pump();
        return;
      }
      const r = slot.running;
      if (!r || r.id !== msg.id) return;
      clearTimeout(r.timer);
      slot.running = null;
      this.counters.completed += 1;
      this.settle(r, msg.outcome);
      this.pump();
    });
    const crashed = (what: string) => {
      if (!this.slots.includes(slot)) return; // already retired (timeout/abort)
      this.counters.crashed += slot.running ? 1 : 0;
      if (!slot.ready && !slot.running && this.queue.length > 0) {
        // A thread that cannot even boot would be respawned forever: fail a waiting job with the cause.
        slot.running = { ...this.queue.shift()!, id: 0 };
        what = `replay thread failed to start: ${what}`;
      }
      this.retire(slot, { ok: false, reason_category: 'replay_runtime', reason: what });
    };
    worker.on('error', (err: Error & { code?: string }) =>
      crashed(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `replay thread ran out of memory (heap limit ${this.maxHeapMb} MB)`
          : `replay thread crashed: ${err.message}`,
      ),
    );
    worker.on('exit', (code) => crashed(`replay thread exited with code ${code}`));
    worker.unref(); // after the listeners (adding one re-refs it); pump() refs threads while work is pending
    this.slots.push(slot);
    return slot;
  }

  /** Boots every thread now (a worker does this at start so the first wave does not wait for it). */
  prewarm(): void {
    while (this.slots.length < this.size && !this.closed) this.spawn();
  }

  /** Drops a slot (terminating its thread) and settles its running job with `outcome`. */
  private retire(slot: Slot, outcome: EvalOutcome): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    const r = slot.running;
    slot.running = null;
    if (r) {
      clearTimeout(r.timer);
      this.settle(r, outcome);
    }
    void slot.worker.terminate();
    // Replace at once: the new thread boots while the workflow digests this outcome.
    if (!this.closed && this.slots.length < this.size) this.spawn();
    this.pump();
  }

  private pump(): void {
    this.dispatch();
    // Pending work keeps the process alive until its outcome arrives; an idle pool never does.
    const pending = this.queue.length > 0 || this.slots.some((s) => s.running);
    for (const s of this.slots) (pending ? s.worker.ref() : s.worker.unref());
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      const slot = this.slots.find((s) => s.ready && !s.running);
      if (!slot) {
        // Start threads for waiting jobs (up to the size); a booting thread pumps again when ready.
        let booting = this.slots.filter((s) => !s.ready).length;
        while (this.slots.length < this.size && booting < this.queue.length) {
          this.spawn();
          booting += 1;
        }
        return;
      }
      const p = this.queue.shift()!;
      const id = this.nextId++;
      const running: Slot['running'] = { ...p, id };
      // Keep the same resolve/abort identity as the queued entry.
      slot.running = running;
      const limit = p.job.timeoutSeconds;
      if (limit !== null && limit > 0) {
        const s = slot;
        running.timer = setTimeout(() => {
          if (s.running !== running) return;
          this.counters.timedOut += 1;
          this.retire(s, { ok: false, reason_category: 'runtime_timeout', reason: `exceed runtime: replay > ${limit}s` });
        }, limit * 1000);
      }
      const task: ThreadTask = { id, ctx: p.job.ctx, candidate: p.job.candidate, ...testHooks(p.job.candidate) };
      slot.worker.postMessage(task);
    }
  }
}

let shared: ReplayPool | undefined;
let sharedOptions: ReplayPoolOptions = {};

/** Sets the size/heap of the process-wide pool (before first use; `spica worker --concurrency`). */
export function configureReplayPool(opts: ReplayPoolOptions): void {
  sharedOptions = opts;
  if (shared && shared.size !== (opts.size ?? defaultPoolSize())) {
    const old = shared;
    shared = undefined;
    void old.close();
  }
}

/** The process-wide pool the replay activity uses. */
export function replayPool(): ReplayPool {
  shared ??= new ReplayPool(sharedOptions);
  return shared;
}
