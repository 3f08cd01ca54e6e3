// One hardware SKU as described by `systems/<sku>.yaml` (loaded by src/hardware/systems.ts).

export interface SystemSpec {
  sku: string;
  /** HBM capacity per GPU, bytes. */
  memCapacityBytes: number;
  /** Spec HBM bandwidth per GPU, bytes/s. */
  memBwBps: number;
  /** Dense Tensor-Core peaks per GPU, FLOP/s (absent = unsupported dtype). */
  flops: { fp32?: number; bf16: number; int8?: number; fp8?: number; fp4?: number };
  gpusPerNode: number;
  /** NVLink domain for rack-scale systems (GB200: 72); equals gpusPerNode otherwise. */
  gpusPerRack: number;
  /** Per GPU, one direction, bytes/s. */
  intraNodeBwBps: number;
  interNodeBwBps: number;
  interRackBwBps?: number;
  /** Fixed latency of an inter-rack hop (GB200/GB300 NVL72 racks), s. */
  interRackLatencyS?: number;
  p2pLatencyS: number;
  /** NCCL buffers reserved per GPU, keyed by min(tp, 8). */
  ncclMemBytes: Record<'1' | '2' | '4' | '8', number>;
  /** CUDA context / cuBLAS / runtime reserve per GPU, bytes. */
  otherMemBytes: number;
  /** Fraction of HBM bandwidth element-wise ops reach, and their fixed launch cost. */
  memBwEmpiricalScaling: number;
  elementwiseLatencyS: number;
  /** Host link used for G1↔G2 KV offload, bytes/s (PCIe). */
  pcieBwBps: number;
}
