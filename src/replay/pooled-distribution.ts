// A large pooled sample (every inter-token gap of a replay: ~130 M at 1 M requests) kept exactly in
// little memory. Gaps repeat heavily — every request of a decode batch gets the same gap from the same
// pass — so the sample is stored as (value, count) runs, compacted into sorted distinct values when the
// buffer fills. Percentiles are exact (the same order statistics and interpolation as sorting the
// whole sample); the sums are accumulated value by value in arrival order, so means are bit-identical
// to summing the full array. Memory is 16 bytes per distinct value instead of 8 per sample.

const INITIAL_RUNS = 1 << 12;

export class PooledDistribution {
  /** Samples added. */
  count = 0;
  /** Σ v in arrival order. */
  sum = 0;
  /** Σ 1000 / v over the positive samples, in arrival order (per-user token rate from ms gaps). */
  invSum = 0;
  invCount = 0;

  private values = new Float64Array(INITIAL_RUNS);
  private counts = new Float64Array(INITIAL_RUNS);
  private runs = 0;
  /** values[0..sortedRuns) are sorted and distinct. */
  private sortedRuns = 0;

  /** Adds `times` samples of value `v`. */
  add(v: number, times = 1): void {
    for (let i = 0; i < times; i++) {
      this.sum += v;
      if (v > 0) {
        this.invSum += 1000 / v;
        this.invCount++;
      }
    }
    this.count += times;
    const last = this.runs - 1;
    if (last >= this.sortedRuns && this.values[last] === v) {
      this.counts[last] += times;
      return;
    }
    if (this.runs === this.values.length) this.makeRoom();
    this.values[this.runs] = v;
    this.counts[this.runs] = times;
    this.runs++;
  }

  mean(): number {
    return this.count > 0 ? this.sum / this.count : NaN;
  }

  /** Distinct values held (after compaction) — the memory in use is 16 bytes per run. */
  storedRuns(): number {
    return this.runs;
  }

  /**
   * Percentiles p ∈ [0, 100] with linear interpolation between closest ranks (numpy's default,
   * as stats.ts percentileSorted). Empty → NaN.
   */
  percentiles(ps: readonly number[]): number[] {
    if (this.count === 0) return ps.map(() => NaN);
    this.compact();
    const n = this.count;
    return ps.map((p) => {
      const x = (p / 100) * (n - 1);
      const lo = Math.floor(x);
      const hi = Math.min(n - 1, lo + 1);
      const vLo = this.valueAtRank(lo);
      return vLo + (this.valueAtRank(hi) - vLo) * (x - lo);
    });
  }

  /** The k-th smallest sample (0-based); call after compact(). */
  private valueAtRank(k: number): number {
    let seen = 0;
    for (let i = 0; i < this.runs; i++) {
      seen += this.counts[i];
      if (k < seen) return this.values[i];
    }
    return this.values[this.runs - 1];
  }

  /** Compacts; grows the buffer only when compaction freed less than half of it. */
  private makeRoom(): void {
    this.compact();
    if (this.runs > this.values.length / 2) {
      const values = new Float64Array(this.values.length * 2);
      const counts = new Float64Array(this.values.length * 2);
      values.set(this.values.subarray(0, this.runs));
      counts.set(this.counts.subarray(0, this.runs));
      this.values = values;
      this.counts = counts;
    }
  }

  /** Sorts the unsorted tail and merges it into the sorted distinct prefix. */
  private compact(): void {
    if (this.sortedRuns === this.runs) return;
    const { values, counts } = this;
    const tail = Array.from({ length: this.runs - this.sortedRuns }, (_, i) => this.sortedRuns + i);
    tail.sort((a, b) => values[a] - values[b]);
    const outV = new Float64Array(values.length);
    const outC = new Float64Array(values.length);
    let o = 0;
    const put = (v: number, c: number) => {
      if (o > 0 && outV[o - 1] === v) outC[o - 1] += c;
      else {
        outV[o] = v;
        outC[o] = c;
        o++;
      }
    };
    let i = 0;
    let j = 0;
    while (i < this.sortedRuns || j < tail.length) {
      if (j >= tail.length || (i < this.sortedRuns && values[i] <= values[tail[j]])) {
        put(values[i], counts[i]);
        i++;
      } else {
        put(values[tail[j]], counts[tail[j]]);
        j++;
      }
    }
    this.values = outV;
    this.counts = outC;
    this.runs = o;
    this.sortedRuns = o;
  }
}
