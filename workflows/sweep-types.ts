// Payload shapes exchanged by the sweep workflow, its children, the plan activity and the CLI.
// Type-only: nothing here executes, so workflows and Node code can share it.
import type { SmartSearchConfig } from '../src/config/schema.js';
import type { BranchDimensions } from '../src/search/dimensions.js';

/**
 * What starts a sweep: the validated config object (what `spica sweep` sends), or raw YAML so the
 * Web UI and `temporal workflow start --input '{"configYaml": "…"}'` can start one. `baseDir`
 * anchors relative paths (trace_path) in the YAML; default: the worker's working directory.
 */
export type SweepInput = SmartSearchConfig | SweepYamlInput;

export interface SweepYamlInput {
  configYaml: string;
  sourceName?: string;
  baseDir?: string;
}

/** Labels the sweep is indexed by (search attributes) and reported with. */
export interface SweepLabels {
  model: string;
  hardware: string;
  goal: string;
}

/** Result of the `plan` activity. */
export interface SweepPlan {
  config: SmartSearchConfig;
  labels: SweepLabels;
  seed: number;
  branches: BranchDimensions[];
  warnings: string[];
  /** Sweep search attributes registered on the server (only these are upserted). */
  searchAttributes: string[];
}

export interface BranchStudyInput {
  sweepId: string;
  config: SmartSearchConfig;
  branch: BranchDimensions;
}

/** What one `branchStudy` child returns. Today: its resolved dimensions (the loop comes later). */
export interface BranchStudyResult {
  deployment_mode: string;
  branch: BranchDimensions;
}

export type BranchStatus = 'pending' | 'running' | 'done' | 'failed';

export interface SweepProgress {
  phase: 'planning' | 'studying' | 'done' | 'failed';
  branchesPlanned: number;
  branchesDone: number;
  branches: { deployment_mode: string; status: BranchStatus; workflowId: string }[];
}

/** Merged result of a sweep run. */
export interface SweepRunResult {
  workflowId: string;
  labels: SweepLabels;
  seed: number;
  branches: BranchStudyResult[];
  warnings: string[];
}

export function isYamlInput(input: SweepInput): input is SweepYamlInput {
  return typeof input === 'object' && input !== null && typeof (input as { configYaml?: unknown }).configYaml === 'string';
}
