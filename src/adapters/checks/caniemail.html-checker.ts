import type * as CaniemailModule from 'caniemail';
import { UnavailableError } from '../../core/errors.js';
import type {
  ClientCompatibility,
  ClientFinding,
  FamilyCompatibility,
  FeatureUse,
  HtmlCompatibilityChecker,
  HtmlCompatibilityReport,
} from '../../ports/html-compatibility.js';
import { featureSkeleton } from './feature-skeleton.js';

type Caniemail = typeof CaniemailModule;
type EmailClient = Parameters<Caniemail['caniemail']>[0]['clients'][number];
type Dataset = Caniemail['rawData'];
interface Issue {
  title: string;
  notes: string[];
}
/** The checker's issues, by client. */
interface IssuesByClient {
  get(client: EmailClient): Issue[] | undefined;
}

/** Clients the data set has results for on at least this share of its features (33 clients of 14 families in the 2026-05 data); the rest lack results for common features such as `<img>` and would mostly be left out anyway. */
const MIN_COVERAGE = 0.94;
const MISSING_CLIENT = /not found on "([^"]+)"/;

const round = (n: number) => Math.round(n);
const mean = (values: number[]) => (values.length === 0 ? 100 : values.reduce((a, b) => a + b, 0) / values.length);

/** Clients the data set covers well enough, as `family.platform`. */
function coveredClients(dataset: Dataset): EmailClient[] {
  const counts = new Map<string, number>();
  for (const feature of dataset.data) {
    for (const [family, platforms] of Object.entries(feature.stats)) {
      for (const platform of Object.keys(platforms as object)) counts.set(`${family}.${platform}`, (counts.get(`${family}.${platform}`) ?? 0) + 1);
    }
  }
  return [...counts].filter(([, n]) => n >= dataset.data.length * MIN_COVERAGE).map(([client]) => client as EmailClient).sort();
}

/**
 * HTML compatibility from the caniemail data set and checker (npm `caniemail`). The package is
 * loaded on first use, so a missing or broken install answers 503 instead of stopping the server.
 */
export class CaniemailHtmlChecker implements HtmlCompatibilityChecker {
  private loaded: Promise<{ library: Caniemail; clients: EmailClient[] }> | undefined;

  /** `moduleName`: the package to load; tests name a missing one to see the 503. */
  constructor(private readonly moduleName = 'caniemail') {}

  private load() {
    this.loaded ??= (import(this.moduleName) as Promise<Caniemail>).then((library) => ({ library, clients: coveredClients(library.rawData) }));
    return this.loaded.catch((error: unknown) => {
      this.loaded = undefined;
      // The loader's message names the server's install paths: the caller reads the fact, the log (the 503's err) the cause.
      throw new UnavailableError('HTML_CHECK_UNAVAILABLE', 'The email-client support data set (caniemail) could not be loaded', undefined, { cause: error });
    });
  }

  async check(html: string): Promise<HtmlCompatibilityReport> {
    const { library, clients: allClients } = await this.load();
    const skeleton = featureSkeleton(html);
    let clients = allClients;
    const clientsWithoutData: HtmlCompatibilityReport['clientsWithoutData'] = [];
    for (;;) {
      try {
        const { issues } = library.caniemail({ clients, html: skeleton });
        return report(library.rawData, clients, issues.errors, issues.warnings, clientsWithoutData);
      } catch (error) {
        // The checker stops at the first feature a client has no result for: score that client no further.
        const missing = MISSING_CLIENT.exec((error as Error).message);
        const client = missing?.[1];
        if (client === undefined || !clients.includes(client as EmailClient)) throw error;
        clientsWithoutData.push({ client, feature: /Feature "([^"]+)"/.exec((error as Error).message)?.[1] ?? '' });
        clients = clients.filter((c) => c !== client);
      }
    }
  }
}

/** One entry per feature title (the checker reports every occurrence). */
function distinct(issues: Issue[] | undefined): ClientFinding[] {
  const byTitle = new Map<string, ClientFinding>();
  for (const issue of issues ?? []) if (!byTitle.has(issue.title)) byTitle.set(issue.title, { feature: issue.title, notes: issue.notes });
  return [...byTitle.values()];
}

function report(
  dataset: Dataset,
  clients: EmailClient[],
  errors: IssuesByClient,
  warnings: IssuesByClient,
  clientsWithoutData: HtmlCompatibilityReport['clientsWithoutData'],
): HtmlCompatibilityReport {
  const findings = clients.map((client) => ({ client, unsupported: distinct(errors.get(client)), partial: distinct(warnings.get(client)) }));
  const titles = new Set(findings.flatMap((f) => [...f.unsupported, ...f.partial].map((i) => i.feature)));
  const score = (unsupported: number, partial: number) => (titles.size === 0 ? 100 : round((100 * (titles.size - unsupported - partial / 2)) / titles.size));
  const families = new Map<string, FamilyCompatibility>();
  for (const f of findings) {
    const [family = '', platform = ''] = f.client.split('.');
    const entry: ClientCompatibility = {
      client: f.client,
      platform,
      platformName: dataset.nicenames.platform[platform] ?? platform,
      score: score(f.unsupported.length, f.partial.length),
      unsupported: f.unsupported,
      partial: f.partial,
    };
    const group = families.get(family) ?? { family, name: dataset.nicenames.family[family] ?? family, score: 0, clients: [] };
    group.clients.push(entry);
    families.set(family, group);
  }
  for (const group of families.values()) group.score = round(mean(group.clients.map((c) => c.score)));
  // The data set lists families most used first (Gmail, Outlook, Yahoo, Apple Mail, …): keep its order.
  const familyOrder = Object.keys(dataset.nicenames.family);
  const rank = (family: string) => (familyOrder.includes(family) ? familyOrder.indexOf(family) : familyOrder.length);
  const byTitle = new Map(dataset.data.map((feature) => [feature.title, feature]));
  const features: FeatureUse[] = [...titles].map((title) => ({
    title,
    category: byTitle.get(title)?.category ?? 'others',
    url: byTitle.get(title)?.url ?? '',
    unsupportedBy: findings.filter((f) => f.unsupported.some((i) => i.feature === title)).length,
    partiallySupportedBy: findings.filter((f) => f.partial.some((i) => i.feature === title)).length,
  }));
  features.sort((a, b) => b.unsupportedBy - a.unsupportedBy || b.partiallySupportedBy - a.partiallySupportedBy || a.title.localeCompare(b.title));
  return {
    dataset: { name: 'caniemail', version: dataset.api_version, updatedAt: dataset.last_update_date },
    score: round(mean(findings.map((f) => score(f.unsupported.length, f.partial.length)))),
    features,
    families: [...families.values()].sort((a, b) => rank(a.family) - rank(b.family)),
    clientsWithoutData,
  };
}
