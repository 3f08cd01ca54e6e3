// Per-optimizer memo of each told or pending point's key and encoding, by object identity. Points are
// never mutated once stored (tell copies what it is given), and every ask used to rebuild the key and
// encoding of the same few hundred told points several times over (pointKey formats every number).
// Candidates are not memoized: each is looked at once, and a WeakMap entry per candidate costs more
// (in garbage collection) than it saves.
import { pointKey, type Dimension, type Point, type SpaceCodec } from './space.js';

export class PointMemo {
  private readonly keys = new WeakMap<Point, string>();
  private readonly finiteKeys = new WeakMap<Point, string>();
  private readonly codes = new WeakMap<Point, Float64Array>();
  private readonly finite: readonly Dimension[];

  constructor(readonly codec: SpaceCodec) {
    this.finite = codec.space.filter((d) => d.kind !== 'continuous');
  }

  /** pointKey over every dimension. */
  key(p: Point): string {
    let k = this.keys.get(p);
    if (k === undefined) {
      k = pointKey(this.codec.space, p);
      this.keys.set(p, k);
    }
    return k;
  }

  /** pointKey over the finite (categorical and discrete) dimensions only. */
  finiteKey(p: Point): string {
    let k = this.finiteKeys.get(p);
    if (k === undefined) {
      k = pointKey(this.finite, p);
      this.finiteKeys.set(p, k);
    }
    return k;
  }

  /** codec.encode(p), shared: callers must not write to it. */
  encode(p: Point): Float64Array {
    let x = this.codes.get(p);
    if (x === undefined) {
      x = this.codec.encode(p);
      this.codes.set(p, x);
    }
    return x;
  }
}
