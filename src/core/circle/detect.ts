/**
 * Circle (and TFLite) sniffing: the FlatBuffers file identifier at bytes 4..8. Kept apart from
 * the reader so the format registry can detect a circle file without loading the reader.
 */
export const CIRCLE_IDENTIFIER = 'CIR0';
export const TFLITE_IDENTIFIER = 'TFL3';

export function identifierOf(bytes: Uint8Array): string {
  if (bytes.length < 8) return '';
  return String.fromCharCode(bytes[4]!, bytes[5]!, bytes[6]!, bytes[7]!);
}

/**
 * True when the bytes carry the circle (`CIR0`) or TFLite (`TFL3`) identifier. With no bytes
 * (name-only detection, e.g. before reading a dropped file), the extension decides.
 */
export function detect(bytes: Uint8Array, name?: string): boolean {
  const id = identifierOf(bytes);
  if (id === CIRCLE_IDENTIFIER || id === TFLITE_IDENTIFIER) return true;
  if (bytes.length === 0 && name !== undefined) return /\.(circle|tflite)$/i.test(name);
  return false;
}
