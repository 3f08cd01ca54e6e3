// Types of workflow-bundle.mjs for the TypeScript that imports it.
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
export declare const WORKFLOWS_ARTIFACT: string;
export declare const WORKFLOWS_SOURCE: string;
export declare function buildWorkflowBundle(): Promise<{ bundle: WorkflowBundleWithSourceMap; dir: string }>;
export declare function workflowBundle(): Promise<WorkflowBundleWithSourceMap>;
export declare function splitInlineSourceMap(code: string): { code: string; sourceMap: string } | null;
export declare function withInlineSourceMap(code: string, sourceMap: string): string;
