/**
 * The host APIs src/core may use, for `tsconfig.core.json` (ES2023 only: no DOM, no Node types).
 * Only what every host of core has (browser pages, Web Workers, Node >= 20): UTF-8 encoding and
 * decoding. Declared as the WHATWG Encoding standard defines them, narrowed to what core calls.
 * Anything else core would need from its host has to be added here deliberately, and must exist
 * in all three.
 */
interface TextDecodeOptions {
  stream?: boolean;
}

interface TextDecoderOptions {
  fatal?: boolean;
  ignoreBOM?: boolean;
}

interface TextDecoder {
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView, options?: TextDecodeOptions): string;
}

declare var TextDecoder: {
  prototype: TextDecoder;
  new (label?: string, options?: TextDecoderOptions): TextDecoder;
};

interface TextEncoderEncodeIntoResult {
  read: number;
  written: number;
}

interface TextEncoder {
  readonly encoding: string;
  encode(input?: string): Uint8Array<ArrayBuffer>;
  encodeInto(source: string, destination: Uint8Array): TextEncoderEncodeIntoResult;
}

declare var TextEncoder: {
  prototype: TextEncoder;
  new (): TextEncoder;
};

/**
 * WebAssembly (the JS API every host of core has: pages, Web Workers, Node), narrowed to what
 * core/kernels calls: a module compiled synchronously from bytes, instantiated over a memory the
 * caller makes (shared when the host is cross-origin isolated, for the compute threads).
 */
declare namespace WebAssembly {
  interface MemoryDescriptor {
    initial: number;
    maximum?: number;
    shared?: boolean;
  }
  interface Memory {
    readonly buffer: ArrayBuffer | SharedArrayBuffer;
    grow(delta: number): number;
  }
  var Memory: {
    prototype: Memory;
    new (descriptor: MemoryDescriptor): Memory;
  };
  interface Module {}
  var Module: {
    prototype: Module;
    new (bytes: ArrayBufferView | ArrayBuffer): Module;
  };
  type ExportValue = Function | Memory;
  type Exports = Record<string, ExportValue>;
  type ModuleImports = Record<string, ExportValue | number>;
  type Imports = Record<string, ModuleImports>;
  interface Instance {
    readonly exports: Exports;
  }
  var Instance: {
    prototype: Instance;
    new (module: Module, importObject?: Imports): Instance;
  };
  function validate(bytes: ArrayBufferView | ArrayBuffer): boolean;
}
