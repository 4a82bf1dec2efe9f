/**
 * What an engine pass throws when the network needs something this compiler does not do (yet),
 * or nvdla/sw itself does not support: the message names the node and the missing piece, as
 * upstream's `NvDlaError_NotSupported` messages do.
 */
export class UnsupportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedError';
  }
}
