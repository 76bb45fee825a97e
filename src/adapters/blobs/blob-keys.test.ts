import { describe, expect, it } from 'vitest';
import { blobKeys } from './blob-keys.js';

const at = '2026-11-26T03:04:05.678Z';

describe('blobKeys', () => {
  it('puts new mail in a folder per tenant and UTC day, one file per blob', () => {
    expect(blobKeys.eml('t1', 'e1', at)).toBe('emails/t1/2026-11-26/e1.eml');
    expect(blobKeys.attachment('t1', 'e1', at, 'a1')).toBe('emails/t1/2026-11-26/e1.attachment.a1');
  });

  it('finds the email of a key in either layout, and of a temporary file left beside one', () => {
    expect(blobKeys.emailIdOf('emails/t1/2026-11-26/e1.eml')).toBe('e1');
    expect(blobKeys.emailIdOf('emails/t1/2026-11-26/e1.attachment.a1')).toBe('e1');
    expect(blobKeys.emailIdOf('emails/t1/2026-11-26/e1.eml.0f3c.tmp')).toBe('e1');
    expect(blobKeys.emailIdOf('emails/t1/e1/message.eml')).toBe('e1');
    expect(blobKeys.emailIdOf('emails/t1/e1/attachments/a1')).toBe('e1');
    expect(blobKeys.emailIdOf('emails/t1/stray')).toBeUndefined();
  });

  it('finds the email of a disk segment record, and of no segment file listed on its own', () => {
    expect(blobKeys.emailIdOf('emails/t1/2026-11-26/e1.eml#mx07emlv-0a1b2c3d4e5f-1.seg@1234')).toBe('e1');
    expect(blobKeys.emailIdOf('emails/t1/2026-11-26/e1.attachment.a1#mx07emlv-0a1b2c3d4e5f-1.seg@0')).toBe('e1');
    expect(blobKeys.emailIdOf('emails/t1/2026-11-26/mx07emlv-0a1b2c3d4e5f-1.seg')).toBeUndefined();
  });

  it('refuses segments that could leave their folder or be misread', () => {
    expect(() => blobKeys.eml('../t1', 'e1', at)).toThrow(/unsafe/);
    expect(() => blobKeys.eml('t1', 'e1.eml', at)).toThrow(/unsafe/);
    expect(() => blobKeys.attachment('t1', 'e1', at, 'a/1')).toThrow(/unsafe/);
    expect(() => blobKeys.eml('t1', 'e1', 'yesterday')).toThrow(/ISO/);
  });
});
