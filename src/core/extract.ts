/** Auth artefacts found in a message (spec 2.6). Filled in by the extraction rules of the inboxes capability. */
export interface ExtractedLink {
  url: string;
  text: string;
  kind: 'verification' | 'magic-login' | 'password-reset' | 'unsubscribe' | 'other';
}

export interface Extracted {
  otp: string | null;
  verificationCode: string | null;
  links: ExtractedLink[];
  codes: string[];
  magicLink: string | null;
}

export function extractArtefacts(_text: string, _html: string | null): Extracted {
  return { otp: null, verificationCode: null, links: [], codes: [], magicLink: null };
}
