/** Types of scripts/build-cli.mjs, for the TypeScript that imports it (bench/cli.ts, test/cli-bundle.test.ts). */
export declare const ROOT: string;
export declare const OUT_DIR: string;
export declare const ENTRY: string;
/** why the bundle under root cannot run `npu-studio COMMAND` as it is, or null when it is up to date */
export declare function bundleStaleness(root?: string, command?: string): string | null;
export declare function buildCli(root?: string): Promise<{ files: string[]; bytes: number; inputs: number; ms: number }>;
