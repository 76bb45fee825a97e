import type { Readable } from 'node:stream';
import type { ByteRange } from '../../ports/blob-store.js';

/** The HTTP Range header value for a byte range (object stores speak HTTP underneath). */
export const httpRange = (range: ByteRange): string => `bytes=${range.start}-${range.end ?? ''}`;

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
