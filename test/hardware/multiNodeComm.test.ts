// Collectives beyond one NVLink domain (ops.ts): NCCL instead of the intra-node custom all-reduce,
// NCCL's inter-node step counts, per-GPU NIC bandwidth.
import { describe, expect, it } from 'vitest';
import { loadCoefficients } from '../../src/hardware/perf/coefficients.js';
import { OpModel } from '../../src/hardware/perf/ops.js';
import { loadSystem } from '../../src/hardware/systems.js';

describe('multi-node collectives', () => {
  const coeff = loadCoefficients('b200_sxm', 'sglang');
  const b200 = loadSystem('b200_sxm');
  const ops = new OpModel(coeff, b200);
  // One decode step of 16 sequences: 16 tokens × hidden 7168 × bf16.
  const decode = 16 * 7168 * 2;

  it('uses the framework custom all-reduce within a node and NCCL beyond it', () => {
    // Custom all-reduce (intra-node IPC) is several times cheaper than NCCL for decode-sized messages.
    expect(ops.allReduce(decode, 8)).toBeLessThan(0.5 * ops.collective('all_reduce', decode, 8));
    // Two nodes: the measured 8-GPU NCCL all-reduce, each GPU's 1/8 share of 2·bytes half over its NIC,
    // and two inter-node steps (ring and tree both need 2 for 2 nodes).
    const expected = ops.collective('all_reduce', decode, 8) + ((2 * decode) / 8) * 0.5 / b200.interNodeBwBps + 2 * b200.p2pLatencyS;
    expect(ops.allReduce(decode, 16)).toBeCloseTo(expected, 12);
  });

  it('counts NCCL tree steps (2·log2 nodes) for an all-reduce over many nodes, ring steps for all-gather', () => {
    const base = ops.collective('all_reduce', decode, 8);
    const bw = ((2 * decode) / 8) * (7 / 8) / b200.interNodeBwBps;
    expect(ops.allReduce(decode, 64)).toBeCloseTo(base + bw + 6 * b200.p2pLatencyS, 12);
    const ag = ops.collective('all_gather', decode, 8);
    expect(ops.collective('all_gather', decode, 64)).toBeCloseTo(ag + (decode / 8) * (7 / 8) / b200.interNodeBwBps + 7 * b200.p2pLatencyS, 12);
  });

  it('sends an all-to-all share addressed to other nodes through each GPU own NIC', () => {
    const a2a = ops.collective('alltoall', decode, 8);
    expect(ops.collective('alltoall', decode, 16)).toBeCloseTo(a2a + decode * 0.5 / b200.interNodeBwBps + b200.p2pLatencyS, 12);
  });

  it('treats a GB200 rack as one NVLink domain and crosses racks over InfiniBand', () => {
    const gb = loadSystem('gb200');
    const rack = new OpModel(coeff, gb);
    expect(rack.allReduce(decode, 64)).toBe(rack.allReduce(decode, 8));
    const two = rack.allReduce(decode, 144);
    const expected = rack.collective('all_reduce', decode, 8) + ((2 * decode) / 72) * 0.5 / gb.interRackBwBps! + 2 * gb.interRackLatencyS!;
    expect(two).toBeCloseTo(expected, 12);
  });
});
