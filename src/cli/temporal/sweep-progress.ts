// Live sweep progress for `spica sweep`: a one-line bar redrawn in place on a terminal, plain lines
// (only when something changed) otherwise. Fed by the workflow's `progress` query about once a second.
import type { BranchProgress, SweepProgress } from '../../../workflows/sweep-types.js';

/** A duration as 42s, 3m07s or 2h05m; '?' when not known. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * Trials done and wanted over branches. Under rapid `trials_wanted` counts the feasible trials wanted,
 * so infeasible ones can carry `trials_done` past it: wanted is then shown as done, never less.
 */
export function trialCount(branches: BranchProgress[]): { done: number; wanted: number } {
  const done = branches.reduce((n, b) => n + b.trials_done, 0);
  const wanted = branches.reduce((n, b) => n + Math.max(b.trials_wanted, b.trials_done), 0);
  return { done, wanted };
}

/** One-line summary: phase, trials done/wanted, best per branch, ETA (the slowest branch). */
export function progressLine(p: SweepProgress): string {
  if (p.branches.length === 0) return `${p.phase}…`;
  const { done, wanted } = trialCount(p.branches);
  const best = p.branches
    .filter((b) => b.best)
    .map((b) => `${b.deployment_mode} ${b.best!.objective} ${b.best!.value.toFixed(1)}${b.pareto_front_size !== null ? ` (front ${b.pareto_front_size})` : ''}`);
  const etas = p.branches.map((b) => b.eta_seconds);
  const eta = etas.some((e) => e === null) ? null : Math.max(...(etas as number[]));
  const stop = p.stop_requested ? ' · stopping' : '';
  return `${p.phase} · trials ${done}/${wanted} · best ${best.length ? best.join(', ') : '-'} · ETA ${formatDuration(eta)}${stop}`;
}

export function progressBar(p: SweepProgress, width = 24): string {
  const { done, wanted } = trialCount(p.branches);
  const filled = wanted > 0 ? Math.min(width, Math.round((done / wanted) * width)) : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${progressLine(p)}`;
}

/** Writes progress to stderr: redrawn bar on a TTY, a new plain line on change otherwise. */
export class ProgressReporter {
  private last = '';
  constructor(
    private readonly write: (s: string) => void,
    private readonly tty: boolean,
  ) {}

  update(p: SweepProgress): void {
    const text = this.tty ? progressBar(p) : progressLine(p);
    if (text === this.last) return;
    this.last = text;
    this.write(this.tty ? `\r\x1b[2K${text}` : `progress: ${text}\n`);
  }

  /** Ends the redrawn line so later output starts on a fresh one. */
  finish(): void {
    if (this.tty && this.last) this.write('\n');
    this.last = '';
  }
}
