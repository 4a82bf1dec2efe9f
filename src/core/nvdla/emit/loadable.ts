/**
 * A loadable as plain data (the tables of `schemas/loadable.fbs`, nvdla.md section 2.2), what
 * emit produces and serialize writes as FlatBuffers. Enums are kept as the numbers the file holds.
 */

export const LOADABLE_VERSION = { major: 0, minor: 7, subMinor: 0 } as const;

export const INTERFACE = { NONE: 0, DLA1: 1, EMU1: 2 } as const;
export const MEMORY_DOMAIN = { SYSTEM: 0, SRAM: 1 } as const;
export const MEMORY_FLAGS = { ALLOC: 1, SET: 2, INPUT: 4, OUTPUT: 8, DEBUG: 16 } as const;
export const EVENT_OP = { WAIT: 0, SIGNAL: 1 } as const;
/** DLA1 / EMU1 blob sub-interfaces (`NvDlaLoadable.h`) */
export const SUB_INTERFACE = { ADDR0: 1, DEPS: 2, OPS: 3, SURFS: 4, LUTS: 5 } as const;
/** reloc types (`ELST`): which stride of a bound tensor the runtime may patch */
export const RELOC_TYPE = { LINE_STRIDE: 1, SURFACE_STRIDE: 2 } as const;

export interface Version {
  major: number;
  minor: number;
  subMinor: number;
}

export interface TaskListEntry {
  id: number;
  interface: number;
  instance: number;
  addressList: number[];
  preActions: number[];
  postActions: number[];
}

export interface SubmitListEntry {
  id: number;
  taskIds: number[];
}

export interface MemoryListEntry {
  id: number;
  domain: number;
  flags: number;
  size: number;
  alignment: number;
  contents: string[];
  offsets: number[];
  bindId: number;
  tensorDescId: number;
}

export interface AddressListEntry {
  id: number;
  memId: number;
  offset: number;
  size: number;
}

export interface EventListEntry {
  id: number;
  type: number;
  target: number;
  val: number;
  op: number;
}

export interface Blob {
  name: string;
  size: number;
  interface: number;
  subInterface: number;
  version: Version;
  data: Uint8Array;
}

/**
 * An aux-data blob (weights, bias, scale) whose bytes are written where they are needed, once:
 * `serializeLoadable` has `writeInto` write them straight into the loadable's buffer, and `data`
 * is a view of them there from then on; read before that, `data` writes them into memory of
 * their own. ResNet-50's 51 MB of fp16 weights are so laid out once, in the loadable itself.
 */
export class WrittenBlob implements Blob {
  readonly interface: number = INTERFACE.NONE;
  readonly subInterface = 0;
  readonly version: Version = { major: 0, minor: 0, subMinor: 0 };
  private bytes: Uint8Array | null = null;

  constructor(
    readonly name: string,
    /** the bytes' length */
    readonly size: number,
    /** writes the `size` bytes into its argument (`size` long, zeros) */
    private readonly write: (into: Uint8Array) => void,
  ) {}

  get data(): Uint8Array {
    if (!this.bytes) {
      const bytes = new Uint8Array(this.size);
      this.write(bytes);
      this.bytes = bytes;
    }
    return this.bytes;
  }

  /** the bytes into `into` (`size` long), which `data` is from then on */
  writeInto(into: Uint8Array): void {
    if (into.length !== this.size) throw new RangeError(`blob ${this.name}: ${this.size} bytes written into ${into.length}`);
    if (this.bytes) into.set(this.bytes);
    else this.write(into);
    this.bytes = into;
  }
}

export interface TensorDescListEntry {
  name: string;
  id: number;
  memId: number;
  size: number;
  offset: number;
  dataFormat: number;
  dataType: number;
  dataCategory: number;
  pixelFormat: number;
  pixelMapping: number;
  n: number;
  c: number;
  h: number;
  w: number;
  strides: number[];
}

export interface RelocListEntry {
  addressId: number;
  writeId: number;
  offset: number;
  interface: number;
  subInterface: number;
  relocType: number;
}

export interface NvdlaLoadable {
  version: Version;
  tasks: TaskListEntry[];
  memory: MemoryListEntry[];
  addresses: AddressListEntry[];
  events: EventListEntry[];
  /** in the order they were made; serialize writes them sorted by name, as upstream's symbol map */
  blobs: Blob[];
  tensorDescs: TensorDescListEntry[];
  relocs: RelocListEntry[];
  submits: SubmitListEntry[];
}
