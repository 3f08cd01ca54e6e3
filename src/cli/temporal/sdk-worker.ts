// The SDK's Worker, except that a bundle given as code is not first compiled and run in a throwaway
// V8 context (the SDK's parseWorkflowCode does that so that debugger breakpoints bind early) before
// the workflow sandbox compiles and runs it again: ~10 ms of every worker start. Through the SDK's
// protected extension point Worker.getOrCreateBundle (SDK 1.24); any other bundle option goes to the SDK.
// (A V8 code cache of the bundle was tried as well: with the functions the first worker compiled it
// is ~390 KB, and deserializing it cost as much as it saved; measured, not kept.)
import path from 'node:path';
import { Worker, type CompiledWorkerOptions, type Logger } from '@temporalio/worker';

const INLINE_SOURCE_MAP = '//# sourceMappingURL=data:';

export class SpicaSdkWorker extends Worker {
  protected static override async getOrCreateBundle(compiledOptions: CompiledWorkerOptions, logger: Logger) {
    const bundle = compiledOptions.workflowBundle;
    const code = bundle && 'code' in bundle ? bundle.code : undefined;
    const at = code?.lastIndexOf(INLINE_SOURCE_MAP) ?? -1;
    const b64 = code === undefined || at < 0 ? -1 : code.indexOf('base64,', at);
    if (code === undefined || b64 < 0) return super.getOrCreateBundle(compiledOptions, logger);
    // The rest is the SDK's parseWorkflowCode: the inline (slim) source map's `file` made absolute.
    const sourceMap = JSON.parse(Buffer.from(code.slice(b64 + 'base64,'.length).trimEnd(), 'base64').toString()) as { file?: string };
    const filename = path.resolve(process.cwd(), sourceMap.file ?? 'workflow-bundle.js');
    sourceMap.file = filename;
    const withMap = `${code.slice(0, at)}\n${INLINE_SOURCE_MAP}application/json;base64,${Buffer.from(JSON.stringify(sourceMap)).toString('base64')}`;
    return { code: withMap, sourceMap: sourceMap as never, filename };
  }
}
