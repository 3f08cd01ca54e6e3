// Order statistics: percentiles with linear interpolation between closest ranks (numpy's default).

/** Sorts a copy and reads p ∈ [0,100]. Empty → NaN. */
export function percentileSorted(sorted: Float64Array, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const x = (p / 100) * (n - 1);
  const lo = Math.floor(x);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (x - lo);
}

export function mean(a: ArrayLike<number>, n = a.length): number {
  if (n === 0) return NaN;
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i];
  return s / n;
}

/**
 * Several percentiles (ascending) of a large array without a full sort: quickselect per rank, each
 * search confined to the part right of the previous rank (O(n) total in practice). In place: `a`'s
 * order is destroyed.
 */
export function percentilesInPlace(a: Float64Array, ps: number[]): number[] {
  const n = a.length;
  if (n === 0) return ps.map(() => NaN);
  let from = 0;
  return ps.map((p) => {
    const x = (p / 100) * (n - 1);
    const lo = Math.floor(x);
    const start = lo >= from ? from : 0;
    const vLo = select(a, lo, start, n - 1);
    from = lo;
    if (x === lo || lo + 1 >= n) return vLo;
    // After select, everything right of lo is ≥ a[lo]: the next order statistic is their minimum.
    let vHi = Infinity;
    for (let i = lo + 1; i < n; i++) if (a[i] < vHi) vHi = a[i];
    return vLo + (vHi - vLo) * (x - lo);
  });
}

/** Hoare-style quickselect on a[left..right] with median-of-three pivots: a[k] becomes the k-th smallest. */
function select(a: Float64Array, k: number, left: number, right: number): number {
  while (right > left) {
    const mid = (left + right) >>> 1;
    // Median of three into a[mid].
    if (a[mid] < a[left]) swap(a, mid, left);
    if (a[right] < a[left]) swap(a, right, left);
    if (a[right] < a[mid]) swap(a, right, mid);
    const pivot = a[mid];
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return a[k];
  }
  return a[k];
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}
