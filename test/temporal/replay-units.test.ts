// How a wave is cut into replay activities (workflows/replay-units.ts).
import { describe, expect, it } from 'vitest';
import { replayUnits, UNIT_TARGET_MS } from '../../workflows/replay-units.js';

const wave = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('replay units', () => {
  it('one candidate per activity before any measure and for replays of a second or more', () => {
    expect(replayUnits(wave(16), null)).toEqual(wave(16).map((i) => [i]));
    expect(replayUnits(wave(16), UNIT_TARGET_MS)).toEqual(wave(16).map((i) => [i]));
  });

  it('quick replays go in chunks of about the target work, in ask order, never fewer than two units', () => {
    const units = replayUnits(wave(64), 100);
    expect(units.map((u) => u.length)).toEqual([10, 10, 10, 10, 10, 10, 4]);
    expect(units.flat()).toEqual(wave(64));
    expect(replayUnits(wave(64), 1).map((u) => u.length)).toEqual([32, 32]);
    expect(replayUnits(wave(2), 1)).toEqual([[0], [1]]);
    expect(replayUnits(wave(1), 1)).toEqual([[0]]);
  });

  it('a unit never holds more than maxPerUnit candidates, whatever the wave size', () => {
    const units = replayUnits(wave(1024), 0.1, 32);
    expect(units).toHaveLength(32);
    expect(units.every((u) => u.length === 32)).toBe(true);
    expect(units.flat()).toEqual(wave(1024));
    expect(replayUnits(wave(64), 1, 32).map((u) => u.length)).toEqual([32, 32]);
  });
});
