/** How well one email client renders one feature, by the data set's latest test of that client. */
export type SupportLevel = 'full' | 'partial' | 'none';

export interface ClientFinding {
  /** The data set's feature title (`display:flex`, `<style> element`). */
  feature: string;
  /** The data set's notes on this client's support, for example "Partial. Negative values are not supported." */
  notes: string[];
}

export interface ClientCompatibility {
  /** `family.platform` as the data set names it: `outlook.windows`, `gmail.desktop-webmail`. */
  client: string;
  platform: string;
  platformName: string;
  /** 0–100: the share of the features in use this client supports (partial support counts half). */
  score: number;
  unsupported: ClientFinding[];
  partial: ClientFinding[];
}

export interface FamilyCompatibility {
  family: string;
  name: string;
  /** Mean of its clients' scores. */
  score: number;
  clients: ClientCompatibility[];
}

export interface FeatureUse {
  title: string;
  category: 'html' | 'css' | 'image' | 'others';
  /** The feature's page on caniemail.com. */
  url: string;
  unsupportedBy: number;
  partiallySupportedBy: number;
}

export interface HtmlCompatibilityReport {
  dataset: { name: string; version: string; updatedAt: string };
  /** 0–100: the mean of every client's score. */
  score: number;
  /** Features the HTML uses that at least one client supports only partly or not at all. */
  features: FeatureUse[];
  families: FamilyCompatibility[];
  /** Clients left out because the data set has no result for a feature this HTML uses. */
  clientsWithoutData: Array<{ client: string; feature: string }>;
}

/** Checks an HTML body against a data set of email-client support; throws UnavailableError when the data set cannot be loaded. */
export interface HtmlCompatibilityChecker {
  check(html: string): Promise<HtmlCompatibilityReport>;
}
