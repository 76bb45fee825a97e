import { describe, expect, it } from 'vitest';
import { BufferBlob } from './buffer-blob.js';

describe('BufferBlob (the analysis workers\' Blob)', () => {
  it('joins strings, buffers and views into the bytes Node\'s Blob would give', async () => {
    const parts = ['héllo', '\n', new Uint8Array([1, 2, 3]).buffer, Buffer.from('abcdef').subarray(2, 4), new BufferBlob(['!'])];
    const ours = new BufferBlob(parts, { type: 'application/octet-stream' });
    const node = new Blob(parts.map((p) => (p instanceof BufferBlob ? '!' : p)));
    expect(Buffer.from(await ours.arrayBuffer())).toEqual(Buffer.from(await node.arrayBuffer()));
    expect(ours.size).toBe(node.size);
    expect(ours.type).toBe('application/octet-stream');
    expect(await new BufferBlob(['héllo']).text()).toBe('héllo');
  });

  it('returns a fresh buffer from every arrayBuffer() call', async () => {
    const blob = new BufferBlob(['abc']);
    const first = await blob.arrayBuffer();
    new Uint8Array(first).fill(0);
    expect(Buffer.from(await blob.arrayBuffer()).toString()).toBe('abc');
  });
});
