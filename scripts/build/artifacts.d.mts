// Types of artifacts.mjs for the TypeScript that imports it (`root`: the clone, default this one).
export declare const PROJECT_ROOT: string;
export declare function freshArtifact(name: string, root?: string): string | null;
export declare function newArtifactDir(name: string, root?: string): string;
export declare function publishArtifact(name: string, dir: string, inputFiles: string[], startedMs: number, root?: string): void;
