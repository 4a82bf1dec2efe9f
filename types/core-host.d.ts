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
