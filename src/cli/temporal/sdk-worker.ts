// The SDK's Worker, except that a bundle given as code is not first compiled and run in a throwaway
// V8 context (the SDK's parseWorkflowCode does that so that debugger breakpoints bind early) before
// the workflow sandbox compiles and runs it again: ~10 ms of every worker start. Through the SDK's
// protected extension point Worker.getOrCreateBundle (SDK 1.24); any other bundle option goes to the SDK.
// (A V8 code cache of the bundle was tried as well: with the functions the first worker compiled it
// is ~390 KB, and deserializing it cost as much as it saved; measured, not kept.)
import path from 'node:path';
import { Worker, type CompiledWorkerOptions, type Logger } from '@temporalio/worker';
import { splitInlineSourceMap, withInlineSourceMap } from '../../../scripts/build/workflow-bundle.mjs';

export class SpicaSdkWorker extends Worker {
  protected static override async getOrCreateBundle(compiledOptions: CompiledWorkerOptions, logger: Logger) {
    const bundle = compiledOptions.workflowBundle;
    const split = bundle && 'code' in bundle ? splitInlineSourceMap(bundle.code) : null;
    if (!split) return super.getOrCreateBundle(compiledOptions, logger);
    // The rest is the SDK's parseWorkflowCode: the inline (slim) source map's `file` made absolute.
    const sourceMap = JSON.parse(split.sourceMap) as { file?: string };
    const filename = path.resolve(process.cwd(), sourceMap.file ?? 'workflow-bundle.js');
    sourceMap.file = filename;
    return { code: withInlineSourceMap(split.code, JSON.stringify(sourceMap)), sourceMap: sourceMap as never, filename };
  }
}
