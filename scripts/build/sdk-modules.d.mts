// Types of sdk-modules.mjs for the TypeScript that imports it.
export declare function buildSdkModules(build: (options: object) => Promise<unknown>, projectRoot: string, outdir: string): Promise<void>;
export declare function useSdkModules(cliDir: string): void;
