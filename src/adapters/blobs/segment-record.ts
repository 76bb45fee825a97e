/**
 * One blob in a segment file (docs/decisions.md D72): a fixed header, the key the blob was put under,
 * then its bytes. Records are only appended; a delete zeroes the key and the bytes and sets the
 * deleted flag, keeping the lengths so a reader can still step over it.
 *
 *   0  magic "MRSG"      4  flags (1 = deleted)   5  unused
 *   6  key length, u16   8  data length, u32      12 when written, ms since the epoch, f64
 */
const MAGIC = 0x4d525347;
export const HEADER_BYTES = 20;
export const FLAGS_OFFSET = 4;
export const DELETED = 1;

export interface RecordHeader {
  deleted: boolean;
  keyLength: number;
  dataLength: number;
  writtenAt: number;
}

/** The header and the key, written in front of the bytes. */
export function recordHead(key: string, dataLength: number, writtenAt: number): Buffer {
  const keyBytes = Buffer.from(key, 'utf8');
  const head = Buffer.alloc(HEADER_BYTES + keyBytes.byteLength);
  head.writeUInt32BE(MAGIC, 0);
  head.writeUInt16BE(keyBytes.byteLength, 6);
  head.writeUInt32BE(dataLength, 8);
  head.writeDoubleBE(writtenAt, 12);
  keyBytes.copy(head, HEADER_BYTES);
  return head;
}

/** The header at the start of `bytes`, or undefined where there is none (a torn tail, bytes that are no record). */
export function readHeader(bytes: Buffer): RecordHeader | undefined {
  if (bytes.byteLength < HEADER_BYTES || bytes.readUInt32BE(0) !== MAGIC) return undefined;
  return {
    deleted: ((bytes[FLAGS_OFFSET] ?? 0) & DELETED) === DELETED,
    keyLength: bytes.readUInt16BE(6),
    dataLength: bytes.readUInt32BE(8),
    writtenAt: bytes.readDoubleBE(12),
  };
}

export const recordBytes = (header: RecordHeader) => HEADER_BYTES + header.keyLength + header.dataLength;
