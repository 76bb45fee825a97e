/**
 * The Mailroom client SDK: every REST resource with types generated from the OpenAPI document
 * (api-types.generated.ts), waitForMessage, and subscribe() to the realtime stream. It uses only
 * fetch, streams and TextDecoder, so it runs in browsers and in Node 18+.
 */
import { Transport, type TransportOptions } from './http.js';
import { subscribe, type SubscribeOptions, type Subscription } from './realtime.js';
import {
  AccountResource,
  ApiKeysResource,
  DomainsResource,
  EmailsResource,
  EnvironmentsResource,
  InboxesResource,
  IntegrationsResource,
  LogsResource,
  StorageResource,
  WebhooksResource,
  type WaitOptions,
} from './resources.js';

export type ClientOptions = TransportOptions;

export class MailroomClient {
  readonly emails: EmailsResource;
  readonly inboxes: InboxesResource;
  readonly domains: DomainsResource;
  readonly webhooks: WebhooksResource;
  readonly logs: LogsResource;
  readonly apiKeys: ApiKeysResource;
  readonly environments: EnvironmentsResource;
  readonly integrations: IntegrationsResource;
  readonly storage: StorageResource;
  readonly account: AccountResource;
  private readonly http: Transport;

  constructor(options: ClientOptions) {
    this.http = new Transport(options);
    this.emails = new EmailsResource(this.http);
    this.inboxes = new InboxesResource(this.http);
    this.domains = new DomainsResource(this.http);
    this.webhooks = new WebhooksResource(this.http);
    this.logs = new LogsResource(this.http);
    this.apiKeys = new ApiKeysResource(this.http);
    this.environments = new EnvironmentsResource(this.http);
    this.integrations = new IntegrationsResource(this.http);
    this.storage = new StorageResource(this.http);
    this.account = new AccountResource(this.http);
  }

  /** The account this key belongs to. */
  me() {
    return this.http.call('GET /api/v1/auth/me');
  }

  /** The account: id, name, plan and effective limits. */
  tenant() {
    return this.http.call('GET /api/v1/tenant');
  }

  /** This month's usage and the plan's limits. */
  usage() {
    return this.http.call('GET /api/v1/usage');
  }

  /** How to reach this server: SMTP, IMAP and API addresses, TLS and AUTH (docs/dashboard.md). */
  connection() {
    return this.http.call('GET /api/v1/connection');
  }

  /** Same as inboxes.waitForMessage. */
  waitForMessage(inboxId: string, options?: WaitOptions) {
    return this.inboxes.waitForMessage(inboxId, options);
  }

  /** Realtime events over SSE, with automatic reconnect (default 5000 ms) and Last-Event-ID resume. */
  subscribe(options: SubscribeOptions): Subscription {
    return subscribe(this.http, options);
  }
}

export { MailroomApiError, type OperationKey, type Operation, type QueryOf, type BodyOf, type ResponseOf } from './http.js';
export type { RealtimeEvent, RealtimeEventType, SubscribeOptions, Subscription, StreamMode, EmailReceivedData, InboxMessageData } from './realtime.js';
export type { WaitOptions } from './resources.js';
export type * from './api-types.generated.js';
