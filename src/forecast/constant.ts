// `constant`: the next value equals the last observed one.
import type { SeriesModel } from './seriesModel.js';

export class ConstantModel implements SeriesModel {
  private last = Number.NaN;

  observe(y: number): void {
    this.last = y;
  }

  forecast(): number {
    return this.last;
  }
}
