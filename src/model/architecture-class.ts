// Architecture class: the attention kind (GQA / MLA) × FFN kind (dense / MoE) of a model. Models of
// one class run the same kernel families (MLA or paged GQA attention, grouped MoE GEMMs or dense
// GEMMs), so framework costs the kernel tables do not capture differ by class more than by model:
// the replay's fitted corrections (`overhead.replay.byArchitecture`) are keyed by it.
import { isMoe, type ModelArch } from './arch.js';

export const ARCHITECTURE_CLASSES = ['gqa-dense', 'gqa-moe', 'mla-dense', 'mla-moe'] as const;
export type ArchitectureClass = (typeof ARCHITECTURE_CLASSES)[number];

export function architectureClassOf(m: Pick<ModelArch, 'attention' | 'numExperts'>): ArchitectureClass {
  return `${m.attention}-${isMoe(m) ? 'moe' : 'dense'}`;
}
