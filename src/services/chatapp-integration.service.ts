import { randomUUID } from 'node:crypto';
import type { Caller } from '../core/api-key.js';
import { InvalidInputError, NotFoundError } from '../core/errors.js';
import { sealContext, type SecretSealer } from '../core/sealed-secrets.js';
import type { Page, PageRequest } from '../core/pagination.js';
import type { ChatappIntegrationKind } from '../core/vocab.js';
import type { Repositories, UnitOfWork } from '../adapters/db/repositories/index.js';
import type { ChatappIntegrationChanges, ChatappIntegrationRecord } from '../adapters/db/repositories/chatapp-integration.repository.js';
import type { HttpSender } from '../ports/http-sender.js';
import { checkedDestination } from './destination.js';
import type { InboxService } from './inbox.service.js';
import type { TenantLimits } from './tenant-limits.js';

export interface ChatappIntegrationInput {
  kind: ChatappIntegrationKind;
  name?: string;
  url?: string;
  botToken?: string;
  channelId?: string;
  guildId?: string;
  inboxIds?: string[];
  active?: boolean;
}

export type ChatappIntegrationUpdate = Omit<Partial<ChatappIntegrationInput>, 'kind'>;

/**
 * An integration as the API shows it. The incoming-webhook URL and the bot token are credentials
 * (anyone holding them can post), so after creation only their last four characters are shown.
 */
export type ChatappIntegrationView = Omit<ChatappIntegrationRecord, 'tenantId'>;

const mask = (value: string | null) => (value === null ? null : `…${value.slice(-4)}`);

const notFound = (id: string) => new NotFoundError('INTEGRATION_NOT_FOUND', `Integration ${id} not found`);
/** The token travels in the Authorization header: visible ASCII only, so no CR/LF can split or break the request. */
const BOT_TOKEN = /^[\x21-\x7e]{1,500}$/;

function checkedBotToken(token: string): string {
  if (!BOT_TOKEN.test(token)) {
    throw new InvalidInputError('INVALID_BOT_TOKEN', 'botToken must be 1 to 500 visible ASCII characters (no spaces, tabs, CR or LF)', { field: 'botToken' });
  }
  return token;
}

const missing = (field: string, kind: string) => new InvalidInputError('MISSING_FIELD', `${field} is required for a ${kind} integration`, { field });

/** Chat-app notification targets: an incoming-webhook URL, or a bot token plus the channel it posts to. */
export class ChatappIntegrationService {
  constructor(
    private readonly repos: Repositories,
    private readonly unitOfWork: UnitOfWork,
    private readonly sender: HttpSender,
    private readonly inboxes: InboxService,
    private readonly limits: TenantLimits,
    private readonly sealer: SecretSealer,
  ) {}

  private toView(record: ChatappIntegrationRecord, reveal = false): ChatappIntegrationView {
    const { tenantId: _tenantId, ...rest } = record;
    const botToken = rest.botToken === null ? null : this.sealer.open(rest.botToken, sealContext.botToken(record.id));
    return reveal ? { ...rest, botToken } : { ...rest, url: mask(rest.url), botToken: mask(botToken) };
  }

  private sealedToken(integrationId: string, token: string): string {
    return this.sealer.seal(checkedBotToken(token), sealContext.botToken(integrationId));
  }

  async create(caller: Caller, input: ChatappIntegrationInput): Promise<ChatappIntegrationView> {
    if (input.kind === 'webhook' && input.url === undefined) throw missing('url', input.kind);
    if (input.kind === 'bot' && input.botToken === undefined) throw missing('botToken', input.kind);
    if (input.kind === 'bot' && input.channelId === undefined) throw missing('channelId', input.kind);
    await this.limits.assertRoomFor(caller.tenantId, 'chatappIntegrations');
    const now = new Date().toISOString();
    const id = randomUUID();
    const record: ChatappIntegrationRecord = {
      id,
      tenantId: caller.tenantId,
      kind: input.kind,
      name: input.name ?? '',
      url: input.kind === 'webhook' ? await checkedDestination(this.sender, input.url as string) : null,
      botToken: input.kind === 'bot' ? this.sealedToken(id, input.botToken as string) : null,
      channelId: input.kind === 'bot' ? (input.channelId as string) : null,
      guildId: input.kind === 'bot' ? (input.guildId ?? null) : null,
      inboxIds: await this.checkedInboxes(caller, input.inboxIds ?? []),
      active: input.active ?? true,
      createdAt: now,
      updatedAt: now,
    };
    await this.repos.chatappIntegrations.insert(record);
    return this.toView(record, true);
  }

  async list(caller: Caller, request: PageRequest): Promise<Page<ChatappIntegrationView>> {
    const page = await this.repos.chatappIntegrations.list(caller.tenantId, request);
    return { ...page, data: page.data.map((r) => this.toView(r)) };
  }

  async get(caller: Caller, id: string): Promise<ChatappIntegrationView> {
    return this.toView(await this.recordOrThrow(caller, id));
  }

  async update(caller: Caller, id: string, input: ChatappIntegrationUpdate): Promise<ChatappIntegrationView> {
    const record = await this.recordOrThrow(caller, id);
    const forKind = (field: keyof ChatappIntegrationUpdate, kind: ChatappIntegrationKind) => {
      if (input[field] !== undefined && record.kind !== kind) {
        throw new InvalidInputError('FIELD_NOT_APPLICABLE', `${field} does not apply to a ${record.kind} integration`, { field });
      }
    };
    forKind('url', 'webhook');
    forKind('botToken', 'bot');
    forKind('channelId', 'bot');
    forKind('guildId', 'bot');
    const changes: ChatappIntegrationChanges = {
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.url === undefined ? {} : { url: await checkedDestination(this.sender, input.url) }),
      ...(input.botToken === undefined ? {} : { botToken: this.sealedToken(id, input.botToken) }),
      ...(input.channelId === undefined ? {} : { channelId: input.channelId }),
      ...(input.guildId === undefined ? {} : { guildId: input.guildId }),
      ...(input.inboxIds === undefined ? {} : { inboxIds: await this.checkedInboxes(caller, input.inboxIds) }),
      ...(input.active === undefined ? {} : { active: input.active }),
    };
    await this.repos.chatappIntegrations.update(caller.tenantId, id, changes, new Date().toISOString());
    return this.get(caller, id);
  }

  /** Deletes the integration and its queued notifications; its log entries stay. */
  async delete(caller: Caller, id: string): Promise<void> {
    const deleted = await this.unitOfWork(async (repos) => {
      await repos.deliveries.deleteForTarget(caller.tenantId, id);
      return repos.chatappIntegrations.delete(caller.tenantId, id);
    });
    if (!deleted) throw notFound(id);
  }

  private async recordOrThrow(caller: Caller, id: string): Promise<ChatappIntegrationRecord> {
    const record = await this.repos.chatappIntegrations.get(caller.tenantId, id);
    if (record === undefined) throw notFound(id);
    return record;
  }

  private async checkedInboxes(caller: Caller, inboxIds: string[]): Promise<string[]> {
    const unique = [...new Set(inboxIds)];
    for (const inboxId of unique) {
      await this.inboxes.getRecordOrThrow(caller, inboxId).catch(() => {
        throw new InvalidInputError('INBOX_NOT_FOUND', `inboxIds contains ${inboxId}, which is not an inbox of this account`, { field: 'inboxIds' });
      });
    }
    return unique;
  }
}
