// Generated from the OpenAPI document by scripts/generate-client-types.ts. Do not edit: run `npm run client:generate`.

export type ErrorBody = {
  statusCode: number;
  /** HTTP reason phrase */
  error: string;
  /** Stable machine-readable code, listed in docs/errors.md */
  code: string;
  message: string;
  /** The offending parameter, for validation errors */
  field?: string;
};

export type Email = {
  id: string;
  from: string;
  to: Array<string>;
  cc: Array<string>;
  bcc: Array<string>;
  subject: string;
  date: string;
  read: boolean;
  hasAttachments: boolean;
  attachments: Array<{
    id: string;
    filename: string;
    contentType: string;
    size: number;
    contentId: string | null;
    disposition: "attachment" | "inline";
  }>;
  snippet: string;
  spfResult: "pass" | "fail" | "softfail" | "neutral" | "none" | "temperror" | "permerror" | "policy";
  dkimResult: "pass" | "fail" | "softfail" | "neutral" | "none" | "temperror" | "permerror" | "policy";
  dmarcResult: "pass" | "fail" | "softfail" | "neutral" | "none" | "temperror" | "permerror" | "policy";
  authSummary: string;
  /** Why each check came out as it did */
  authDiagnostics: {
    spf: {
      clientIp: string | null;
      domain: string | null;
      record: string | null;
      explanation: string | null;
    };
    dkim: Array<{
      domain: string | null;
      selector: string | null;
      result: "pass" | "fail" | "softfail" | "neutral" | "none" | "temperror" | "permerror" | "policy";
      aligned: boolean;
      explanation: string | null;
    }>;
    dmarc: {
      domain: string | null;
      policy: string | null;
      spfAligned: boolean;
      dkimAligned: boolean;
      explanation: string | null;
    };
  };
  environmentId: string;
  /** The SMTP transaction id; equals id unless one transaction reached several tenants */
  baseEmailId: string;
  messageId: string | null;
  /** Size of the raw message in bytes */
  size: number;
  /** The SMTP envelope; mailFrom and helo are null for mail stored before they were recorded */
  envelope: {
    mailFrom: string | null;
    helo: string | null;
    clientIp: string | null;
  };
  /** off: no spam filter is configured; done: the filter scored the mail; unavailable: it did not answer in time (a worker tries again and emits email.updated) */
  spamCheck: "off" | "done" | "unavailable";
  spamScore: number | null;
  spamThreshold: number | null;
  isSpam: boolean | null;
  spamAction: string | null;
  /** The rules the message matched, largest effect first; empty unless spamCheck is done */
  spamRules: Array<{
    /** The filter's rule (rspamd symbol), e.g. GTUBE, R_SPF_FAIL */
    name: string;
    /** What the rule added to the score (negative: evidence of ham) */
    score: number;
    description: string | null;
    /** What the rule matched on, as the filter reports it */
    options: Array<string>;
  }>;
  createdAt: string;
  updatedAt: string;
};

export type Inbox = {
  id: string;
  address: string;
  addressPrefix: string;
  name: string | null;
  /** Extra addresses of this inbox on its domain; mail to any of them lands here */
  aliases: Array<string>;
  tags: Array<string>;
  expiresAt: string | null;
  active: boolean;
  messageCount: number;
  createdAt: string;
  domain: {
    id: string | null;
    domain: string;
  };
  environment: {
    id: string;
    name: string;
    slug: string;
  };
};

export type ActivityLogEntry = {
  id: string;
  type: "SMTP_RECEIVED" | "SPAM_CHECK" | "WEBHOOK" | "CHATAPP" | "CHATAPP_BOT" | "BULK_ACTION";
  status: "SUCCESS" | "FAILED" | "PENDING";
  message: string;
  /** By type (spec 2.10): SMTP_RECEIVED baseEmailId, from, to, subject, remoteAddress, size; SPAM_CHECK spfResult, dkimResult, dmarcResult, authSummary, and with a spam filter configured spamCheck, spamScore, spamThreshold, isSpam, spamAction, spamRules (status FAILED: SPF, DKIM or DMARC failed or the mail is spam; PENDING: the verdict is still to come); WEBHOOK webhookId, statusCode, durationMs, attemptsMade; CHATAPP integrationId, attemptsMade; CHATAPP_BOT channelConfigId, channelId, guildId */
  metadata: Record<string, unknown>;
  emailId: string | null;
  environmentId: string | null;
  createdAt: string;
};

export type InboxMessage = {
  id: string;
  inboxId: string;
  /** The stored email (GET /emails/:id, /eml, attachments) */
  emailId: string;
  from: string;
  /** The sender's display name, '' when the From header has none */
  fromName: string;
  to: Array<string>;
  subject: string;
  /** Parsed text body (the visible text of the HTML body when there is no text part) */
  textBody: string;
  htmlBody: string | null;
  /** Header name (lower-case) → value; a repeated header is joined with newlines */
  headers: Record<string, string>;
  attachments: Array<{
    id: string;
    filename: string;
    contentType: string;
    size: number;
    contentId: string | null;
    disposition: "attachment" | "inline";
    /** GET this path (same authentication) for the bytes: /api/v1/emails/{emailId}/attachments/{id} */
    downloadUrl: string;
  }>;
  read: boolean;
  extracted: {
    otp: string | null;
    verificationCode: string | null;
    /** The link URLs, in reading order (details of each in linkDetails) */
    links: Array<string>;
    /** The links of `links`, in the same order, with their anchor text and what each is for */
    linkDetails: Array<{
      url: string;
      /** Visible anchor text, or the text next to a bare URL */
      text: string;
      kind: "verification" | "magic-login" | "password-reset" | "email-change" | "account-unlock" | "set-password" | "invitation" | "account-update" | "unsubscribe" | "other";
    }>;
    /** Every code candidate, most confident first */
    codes: Array<string>;
    magicLink: string | null;
  } | null;
  extractionSkipped: "time-budget" | null;
  createdAt: string;
};

export type ApiKey = {
  id: string;
  name: string;
  /** First 8 characters of the key, for identification */
  prefix: string;
  active: boolean;
  environmentId: string | null;
  inboxId: string | null;
  scopes: Array<"api" | "imap">;
  lastUsedAt: string | null;
  expiresAt: string | null;
  createdAt: string;
};

export type Domain = {
  /** Domain identifier */
  id: string;
  /** Domain name, lower-case ASCII (IDN in punycode) */
  domain: string;
  /** The same name with IDN labels decoded, for display */
  unicodeDomain: string;
  /** Ownership verified through DNS; mail is received only when verified and enabled */
  verified: boolean;
  /** Whether reception is enabled */
  enabled: boolean;
  createdAt: string;
};

export type DnsRecord = {
  /** MX routes mail to Mailroom; TXT proves ownership */
  type: "MX" | "TXT";
  /** Owner name to publish the record at (fully qualified, punycode) */
  name: string;
  /** MX: the host to point at; TXT: the exact text */
  value: string;
  /** MX preference (MX only) */
  priority?: number;
  /** Suggested TTL in seconds */
  ttl: number;
  /** pending: never checked; verified: found at the last check; failed: not found or wrong at the last check (see error) */
  status: "pending" | "verified" | "failed";
  checkedAt: string | null;
  error: string | null;
};

export type DomainDetail = {
  /** Domain identifier */
  id: string;
  /** Domain name, lower-case ASCII (IDN in punycode) */
  domain: string;
  /** The same name with IDN labels decoded, for display */
  unicodeDomain: string;
  /** Ownership verified through DNS; mail is received only when verified and enabled */
  verified: boolean;
  /** Whether reception is enabled */
  enabled: boolean;
  createdAt: string;
  /** The code the TXT record carries; POST /domains/:domain/verify takes it as `code` */
  verificationCode: string;
  /** The records to publish, each with the result of its last check */
  records: Array<DnsRecord>;
  lastCheckedAt: string | null;
};

export type Webhook = {
  id: string;
  url: string;
  events: Array<"email.received">;
  description: string;
  /** Inactive webhooks are not fired */
  active: boolean;
  /** Signing secret (whsec_…, or your own). In full only in the response that created or rotated it (or set it at creation); masked (whsec_…last4, or …last4 for your own) everywhere else */
  secret: string;
  /** Linked inboxes; empty means the webhook fires for every email of the account */
  inboxIds: Array<string>;
  createdAt: string;
  updatedAt: string;
};

export type ChatappIntegration = {
  id: string;
  /** webhook: an incoming-webhook URL; bot: a bot token posting to a channel */
  kind: "webhook" | "bot";
  name: string;
  url: string | null;
  botToken: string | null;
  channelId: string | null;
  guildId: string | null;
  /** Inboxes whose emails it announces; empty means every email of the account */
  inboxIds: Array<string>;
  active: boolean;
  createdAt: string;
  updatedAt: string;
};

export type Environment = {
  id: string;
  name: string;
  /** Unique per account; `production` exists for every account and cannot be deleted */
  slug: string;
  createdAt: string;
};

export type CustomStorage = {
  /** This configuration; a new PUT makes a new one */
  id: string;
  /** S3: AWS S3 or any S3-compatible service (MinIO, Ceph, R2, …); AZURE_BLOB: Azure Blob Storage; GCS: Google Cloud Storage */
  provider: "S3" | "AZURE_BLOB" | "GCS";
  bucket: string;
  region: string | null;
  endpoint: string | null;
  forcePathStyle: boolean;
  /** "" or a folder ending in "/" */
  prefix: string;
  metadataOnly: boolean;
  /** Where each email goes in the bucket (dates are the arrival day, UTC) */
  pathLayout: string;
  createdAt: string;
};

/** Every REST operation by "METHOD /path": path parameters, query, JSON body and success response. */
export interface Operations {
  /** List the account's tenant-level keys (prefix only, never the key) */
  "GET /api/v1/api-keys": {
    path: Record<string, never>;
    query: {
      /** Page number, from 1 (max 1000000) */
      page?: number;
      /** Items per page (max 100) */
      perPage?: number;
    };
    body: never;
    response: {
      data: Array<ApiKey>;
      currentPage: number;
      perPage: number;
      totalItems: number;
      totalPages: number;
      hasNextPage: boolean;
      /** Same as totalItems (the name the hosted service's SDK reads) */
      total: number;
    };
  };
  /** Create a key; the full key is in this response only */
  "POST /api/v1/api-keys": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** What the key is for */
      name: string;
      environmentId?: string | null;
      expiresAt?: string | null;
    };
    response: {
      id: string;
      name: string;
      /** First 8 characters of the key, for identification */
      prefix: string;
      active: boolean;
      environmentId: string | null;
      inboxId: string | null;
      scopes: Array<"api" | "imap">;
      lastUsedAt: string | null;
      expiresAt: string | null;
      createdAt: string;
      /** The full key: shown only in this response */
      key: string;
    };
  };
  /** Delete a key for good (400 LAST_ACTIVE_KEY for the caller's own last active key) */
  "DELETE /api/v1/api-keys/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: void;
  };
  /** Activate a key (usable again at once) */
  "POST /api/v1/api-keys/{id}/activate": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: ApiKey;
  };
  /** Deactivate a key (refused at once on every node; 400 LAST_ACTIVE_KEY for the caller's own last active key) */
  "POST /api/v1/api-keys/{id}/deactivate": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: ApiKey;
  };
  /** Whether self-service sign-up is open, and whether sign-up and password reset go by email on this server */
  "GET /api/v1/auth/config": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    response: {
      signup: "open" | "closed";
      /** true: sign-up answers 202 and the account is made when the emailed link is followed (MAILROOM_SMTP_RELAY_URL is set) */
      emailVerification: boolean;
      /** true: a forgotten password can be reset by emailed link (POST /auth/password-reset) */
      passwordReset: boolean;
    };
  };
  /** The signed-in user and the account (user is null for API keys) */
  "GET /api/v1/auth/me": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    response: {
      user: {
        id: string;
        email: string;
        tenantId: string;
        createdAt: string;
      } | null;
      tenant: {
        id: string;
        name: string;
        plan: string;
        createdAt: string;
      };
    };
  };
  /** Change the signed-in user's password; every other session of the user is signed out */
  "POST /api/v1/auth/password": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      currentPassword: string;
      /** 8 to 200 characters, not one of the most common passwords */
      newPassword: string;
    };
    response: void;
  };
  /** Mail a password-reset link to the address, if it has an account */
  "POST /api/v1/auth/password-reset": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      email: string;
    };
    response: {
      status: "check-email";
      message: string;
    };
  };
  /** Set a new password with an emailed reset link; ends every session and signs in */
  "POST /api/v1/auth/password-reset/confirm": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** The `token` of the emailed link (after `#token=`) */
      token: string;
      /** 8 to 200 characters, not one of the most common passwords */
      password: string;
    };
    response: {
      /** HS256 JWT: send as `Authorization: Bearer <token>` to every /api/v1 route, or as `token` to the realtime stream (broadcast mode) */
      accessToken: string;
      tokenType: "Bearer";
      /** Seconds until the token expires; refresh before then */
      expiresIn: number;
      user: {
        id: string;
        email: string;
        tenantId: string;
        createdAt: string;
      };
    };
  };
  /** A new session token for the refresh cookie (which is rotated) */
  "POST /api/v1/auth/refresh": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: Record<string, unknown>;
    response: {
      /** HS256 JWT: send as `Authorization: Bearer <token>` to every /api/v1 route, or as `token` to the realtime stream (broadcast mode) */
      accessToken: string;
      tokenType: "Bearer";
      /** Seconds until the token expires; refresh before then */
      expiresIn: number;
      user: {
        id: string;
        email: string;
        tenantId: string;
        createdAt: string;
      };
    };
  };
  /** Sign in with email and password */
  "POST /api/v1/auth/signin": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Email address (case-insensitive) */
      email: string;
      /** 8 to 200 characters */
      password: string;
    };
    response: {
      /** HS256 JWT: send as `Authorization: Bearer <token>` to every /api/v1 route, or as `token` to the realtime stream (broadcast mode) */
      accessToken: string;
      tokenType: "Bearer";
      /** Seconds until the token expires; refresh before then */
      expiresIn: number;
      user: {
        id: string;
        email: string;
        tenantId: string;
        createdAt: string;
      };
    };
  };
  /** End the session of the refresh cookie and clear it */
  "POST /api/v1/auth/signout": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: Record<string, unknown>;
    response: void;
  };
  /** Create an account: a tenant on the free plan, its production environment and its first user */
  "POST /api/v1/auth/signup": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Email address (case-insensitive) */
      email: string;
      /** 8 to 200 characters */
      password: string;
    };
    response: {
      /** HS256 JWT: send as `Authorization: Bearer <token>` to every /api/v1 route, or as `token` to the realtime stream (broadcast mode) */
      accessToken: string;
      tokenType: "Bearer";
      /** Seconds until the token expires; refresh before then */
      expiresIn: number;
      user: {
        id: string;
        email: string;
        tenantId: string;
        createdAt: string;
      };
    } | {
      status: "check-email";
      message: string;
    };
  };
  /** Follow an emailed sign-up link: makes the account and signs in */
  "POST /api/v1/auth/verify-email": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** The `token` of the emailed link (after `#token=`) */
      token: string;
    };
    response: {
      /** HS256 JWT: send as `Authorization: Bearer <token>` to every /api/v1 route, or as `token` to the realtime stream (broadcast mode) */
      accessToken: string;
      tokenType: "Bearer";
      /** Seconds until the token expires; refresh before then */
      expiresIn: number;
      user: {
        id: string;
        email: string;
        tenantId: string;
        createdAt: string;
      };
    };
  };
  /** How to connect to this server: SMTP, IMAP and API addresses, TLS and AUTH as they are configured (any key with the api scope, inbox-scoped ones too) */
  "GET /api/v1/connection": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    response: {
      /** Inbox addresses are <prefix>@ this domain */
      mailDomain: string;
      api: {
        /** MAILROOM_PUBLIC_URL followed by /api/v1 */
        baseUrl: string;
        /** The header that carries an API key */
        keyHeader: "x-api-key";
        /** TLS here uses the self-signed certificate of the server's data dir (MAILROOM_TLS_CERT is not set): clients must trust it or skip verification */
        selfSignedCertificate: boolean;
      };
      smtp: {
        /** The listen address when it is one address (local mode: 127.0.0.1), otherwise MAILROOM_MX_HOST */
        host: string;
        /** The port SMTP listens on on this node */
        port: number;
        /** none: plain text only (no STARTTLS, no implicit TLS); starttls-optional: STARTTLS offered, not required. Never implicit TLS (port 465 style) */
        security: "none" | "starttls-optional";
        /** TLS here uses the self-signed certificate of the server's data dir (MAILROOM_TLS_CERT is not set): clients must trust it or skip verification */
        selfSignedCertificate: boolean;
        /** not-offered: send without AUTH (AUTH is answered 535); any-credentials: AUTH is optional and any user name and password are accepted */
        auth: "not-offered" | "any-credentials";
        /** true: mail to any address is kept (MAILROOM_ACCEPT_ANY_RECIPIENT); false: only addresses of inboxes and verified domains */
        acceptsAnyRecipient: boolean;
        /** Largest message accepted */
        maxMessageBytes: number;
      };
      /** User name: an inbox address; password: an inbox-scoped key with the imap scope (docs/imap.md) */
      imap: {
        /** As for SMTP */
        host: string;
        port: number;
        /** TLS from the first byte (imaps://, "SSL/TLS"), not STARTTLS */
        security: "implicit-tls";
        /** TLS here uses the self-signed certificate of the server's data dir (MAILROOM_TLS_CERT is not set): clients must trust it or skip verification */
        selfSignedCertificate: boolean;
      };
    };
  };
  /** List the custom domains (a plain array, oldest first) */
  "GET /api/v1/domains": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    response: Array<Domain>;
  };
  /** Add a custom domain; the answer lists the DNS records to publish */
  "POST /api/v1/domains": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Domain name; IDN accepted */
      domain: string;
    };
    response: DomainDetail;
  };
  /** Create or update the MX and TXT records through the DNS provider's API, then check them */
  "POST /api/v1/domains/{domain}/setup-dnsprovider": {
    path: {
      /** The domain name (not the id) */
      domain: string;
    };
    query: Record<string, never>;
    body: {
      /** DNS provider API token with DNS edit permission on the zone; used for this request only, never stored */
      dnsproviderApiToken: string;
      /** Provider zone id; found by the longest zone name matching the domain when omitted */
      zoneId?: string;
    };
    response: {
      domain: DomainDetail;
      zone: {
        id: string;
        name: string;
      };
      /** What was done at the provider for each record */
      changes: Array<{
        type: "MX" | "TXT";
        name: string;
        action: "created" | "updated" | "unchanged";
      }>;
    };
  };
  /** Check the MX and TXT records now; 400 names every record that does not check out */
  "POST /api/v1/domains/{domain}/verify": {
    path: {
      /** The domain name (not the id) */
      domain: string;
    };
    query: Record<string, never>;
    body: {
      /** The verificationCode shown when the domain was added */
      code: string;
    };
    response: DomainDetail;
  };
  /** A domain with its DNS records and the last check of each */
  "GET /api/v1/domains/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: DomainDetail;
  };
  /** Delete the domain and its inboxes; catch-all emails stay in the account's emails */
  "DELETE /api/v1/domains/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: void;
  };
  /** Stop reception (RCPT TO answers 550); stored emails stay readable */
  "POST /api/v1/domains/{id}/disable": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: DomainDetail;
  };
  /** Resume reception for the domain */
  "POST /api/v1/domains/{id}/enable": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: DomainDetail;
  };
  /** The verification status as last checked (no DNS lookup); POST /domains/:domain/verify checks now */
  "GET /api/v1/domains/{id}/verify": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: DomainDetail;
  };
  /** List emails */
  "GET /api/v1/emails": {
    path: Record<string, never>;
    query: {
      /** Page number, from 1 (default 1); not with cursor */
      page?: number;
      /** Items per page (default 20, max 100) */
      perPage?: number;
      /** Same as perPage (the cursor-style spelling); give one of the two */
      limit?: number;
      /** The nextCursor of a previous answer (same filters and sort): the page after it, stable while new mail arrives */
      cursor?: string;
      /** Only emails delivered to this inbox (an inbox-scoped key may name only its own) */
      inboxId?: string;
      /** Search across subject, sender, recipients and body: words, "phrases", from:, to:, subject:, is:read, is:unread, has:attachment, before:YYYY-MM-DD, after:YYYY-MM-DD, -term (docs/search.md) */
      q?: string;
      /** Sender address contains this, case-insensitively; % and _ are literal */
      from?: string;
      /** A to, cc or bcc address contains this, case-insensitively */
      to?: string;
      /** Subject contains this, case-insensitively */
      subject?: string;
      /** Same as from (the spelling existing SDK clients send); from wins when both are given */
      "filter.from"?: string;
      /** Same as to (the spelling existing SDK clients send); to wins when both are given */
      "filter.to"?: string;
      /** Same as subject (the spelling existing SDK clients send); subject wins when both are given */
      "filter.subject"?: string;
      /** Only read (true) or unread (false) emails */
      "filter.read"?: boolean;
      /** Only emails of this environment */
      "filter.environmentId"?: string;
      /** Received at or after this date-time; a date means from 00:00:00Z that day */
      "filter.createdAfter"?: string;
      /** Received at or before this date-time; a date means until 23:59:59.999Z that day */
      "filter.createdBefore"?: string;
      /** Same as filter.createdAfter (the spelling existing SDK clients send); filter.createdAfter wins when both are given */
      "filter[createdAfter]"?: string;
      /** Same as filter.createdBefore (the spelling existing SDK clients send); filter.createdBefore wins when both are given */
      "filter[createdBefore]"?: string;
      /** Sort key (default createdAt); from and subject sort case-insensitively */
      "sort.field"?: "createdAt" | "from" | "subject";
      /** Sort direction (default desc) */
      "sort.order"?: "asc" | "desc";
      /** Same as sort.field (the spelling existing SDK clients send); sort.field wins when both are given */
      "sort[field]"?: "createdAt" | "from" | "subject";
      /** Same as sort.order (the spelling existing SDK clients send); sort.order wins when both are given */
      "sort[order]"?: "asc" | "desc";
    };
    body: never;
    response: {
      data: Array<Email>;
      currentPage: number;
      perPage: number;
      totalItems: number;
      totalPages: number;
      hasNextPage: boolean;
      /** Same as totalItems (the name the hosted service's SDK reads) */
      total: number;
      nextCursor: string | null;
      /** true when a `q` search matched more emails than it counted (it counts up to 1,000, or to the end of the requested page): totalItems, total and totalPages are then "at least"; hasNextPage and nextCursor stay exact (docs/search.md) */
      totalItemsIsLowerBound: boolean;
    };
  };
  /** Download an attachment */
  "GET /api/v1/emails/{emailId}/attachments/{attachmentId}": {
    path: {
      emailId: string;
      attachmentId: string;
    };
    query: Record<string, never>;
    body: never;
    response: Blob;
  };
  /** Get one email */
  "GET /api/v1/emails/{id}": {
    path: {
      id: string;
    };
    query: {
      /** Also mark the email read */
      markAsRead?: boolean;
    };
    body: never;
    response: Email;
  };
  /** Delete an email, its raw EML and attachments */
  "DELETE /api/v1/emails/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: void;
  };
  /** HTML and text bodies and headers */
  "GET /api/v1/emails/{id}/content": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: {
      id: string;
      html: string | null;
      text: string | null;
      headers: Record<string, string>;
    };
  };
  /** Download the raw message */
  "GET /api/v1/emails/{id}/eml": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: Blob;
  };
  /** HTML and CSS support of the email's HTML body, per email client (caniemail data set) */
  "GET /api/v1/emails/{id}/html-check": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: {
      emailId: string;
      dataset: {
        name: "caniemail";
        /** The data set's API version */
        version: string;
        /** When the data set was last updated, as it states it */
        updatedAt: string;
      };
      /** Mean of every client's score */
      score: number;
      /** Features the HTML uses that at least one client supports only partly or not at all, most unsupported first */
      features: Array<{
        title: string;
        category: "html" | "css" | "image" | "others";
        /** The feature's page on caniemail.com */
        url: string;
        /** Clients that do not support it */
        unsupportedBy: number;
        /** Clients that support it partly */
        partiallySupportedBy: number;
      }>;
      families: Array<{
        family: string;
        name: string;
        score: number;
        clients: Array<{
          /** `family.platform` as caniemail names it, e.g. `outlook.windows` */
          client: string;
          platform: string;
          platformName: string;
          /** Share of the listed features this client supports (partial support counts half) */
          score: number;
          unsupported: Array<{
            /** The data set's feature title, e.g. `display:flex` or `<style> element` */
            feature: string;
            /** The data set's notes on this client's support */
            notes: Array<string>;
          }>;
          partial: Array<{
            /** The data set's feature title, e.g. `display:flex` or `<style> element` */
            feature: string;
            /** The data set's notes on this client's support */
            notes: Array<string>;
          }>;
        }>;
      }>;
      /** Clients left out because the data set has no result for a feature this HTML uses */
      clientsWithoutData: Array<{
        client: string;
        feature: string;
      }>;
    };
  };
  /** Follow every link and image of the email and report each URL's status */
  "GET /api/v1/emails/{id}/link-check": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: {
      emailId: string;
      /** Distinct http(s) URLs of the mail's links and images */
      total: number;
      /** More URLs than one check follows (200); the first 200 are listed */
      truncated: boolean;
      summary: {
        ok: number;
        broken: number;
        error: number;
      };
      links: Array<{
        url: string;
        kind: "link" | "image";
        /** ok: final status below 400; broken: 400 or above; error: no final answer */
        result: "ok" | "broken" | "error";
        /** The last URL requested, after redirects */
        finalUrl: string;
        statusCode: number | null;
        /** Each redirect followed (at most 5) */
        redirects: Array<{
          url: string;
          method: "HEAD" | "GET";
          statusCode: number;
        }>;
        error: {
          kind: "blocked" | "invalid-url" | "dns" | "connection" | "tls" | "timeout" | "too-many-redirects";
          message: string;
        } | null;
        durationMs: number;
      }>;
    };
  };
  /** Mark an email read */
  "PATCH /api/v1/emails/{id}/read": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: {
      id: string;
      read: boolean;
      updatedAt: string;
    };
  };
  /** Mark an email unread */
  "PATCH /api/v1/emails/{id}/unread": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: {
      id: string;
      read: boolean;
      updatedAt: string;
    };
  };
  /** Delete many emails: by ids or by the list filter and q */
  "POST /api/v1/emails/delete": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** These emails (at most 1000); ids the key cannot see are skipped and not reported */
      ids?: Array<string>;
      /** The list filter; {} selects every email the key can see */
      filter?: {
        /** As GET /emails from */
        from?: string;
        /** As GET /emails to */
        to?: string;
        /** As GET /emails subject */
        subject?: string;
        /** As GET /emails filter.read */
        read?: boolean;
        /** As GET /emails filter.environmentId */
        environmentId?: string;
        /** As GET /emails filter.createdAfter */
        createdAfter?: string;
        /** As GET /emails filter.createdBefore */
        createdBefore?: string;
      };
      /** Search across subject, sender, recipients and body: words, "phrases", from:, to:, subject:, is:read, is:unread, has:attachment, before:YYYY-MM-DD, after:YYYY-MM-DD, -term (docs/search.md) */
      q?: string;
    };
    response: {
      /** Emails deleted */
      deleted: number;
    };
  };
  /** Mark many emails read (or unread with read: false) */
  "POST /api/v1/emails/read": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** These emails (at most 1000); ids the key cannot see are skipped and not reported */
      ids?: Array<string>;
      /** The list filter; {} selects every email the key can see */
      filter?: {
        /** As GET /emails from */
        from?: string;
        /** As GET /emails to */
        to?: string;
        /** As GET /emails subject */
        subject?: string;
        /** As GET /emails filter.read */
        read?: boolean;
        /** As GET /emails filter.environmentId */
        environmentId?: string;
        /** As GET /emails filter.createdAfter */
        createdAfter?: string;
        /** As GET /emails filter.createdBefore */
        createdBefore?: string;
      };
      /** Search across subject, sender, recipients and body: words, "phrases", from:, to:, subject:, is:read, is:unread, has:attachment, before:YYYY-MM-DD, after:YYYY-MM-DD, -term (docs/search.md) */
      q?: string;
      /** The state to set (default true: read) */
      read?: boolean;
    };
    response: {
      /** Emails whose read state changed */
      updated: number;
    };
  };
  /** List the account's environments (an environment-scoped key sees only its own) */
  "GET /api/v1/environments": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    response: {
      data: Array<Environment>;
    };
  };
  /** Create an environment (keys scoped to all environments only) */
  "POST /api/v1/environments": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      /** Lower-case letters, digits and inner hyphens; derived from name when absent */
      slug?: string;
    };
    response: Environment;
  };
  /** Delete an empty environment (production: 400 PRODUCTION_ENVIRONMENT) */
  "DELETE /api/v1/environments/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: void;
  };
  /** List inboxes (an inbox-scoped key sees only its own) */
  "GET /api/v1/inboxes": {
    path: Record<string, never>;
    query: {
      /** Page number, from 1 (max 1000000) */
      page?: number;
      /** Items per page (max 100) */
      perPage?: number;
      environmentId?: string;
      domainId?: string;
      /** Inboxes carrying all of these tags (case-insensitive); repeat the parameter or separate with commas */
      tags?: Array<string>;
      /** Also list temporary inboxes past their expiresAt that the sweeper has not removed yet */
      includeExpired?: boolean;
    };
    body: never;
    response: {
      data: Array<Inbox>;
      currentPage: number;
      perPage: number;
      totalItems: number;
      totalPages: number;
      hasNextPage: boolean;
      /** Same as totalItems (the name the hosted service's SDK reads) */
      total: number;
    };
  };
  /** Create an inbox */
  "POST /api/v1/inboxes": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Local part, used as given (lower-cased); generated when omitted */
      prefix?: string;
      /** A display name for the inbox; it does not change the address */
      name?: string;
      domainId?: string;
      environmentId?: string;
      tags?: Array<string>;
      /** 60 to 86400; the inbox and its messages are deleted after that many seconds */
      ttlSeconds?: number;
      /** Up to 10 extra addresses on the inbox's domain: a local part (`sales`) or a full address; unique like inbox addresses */
      aliases?: Array<string>;
    };
    response: Inbox;
  };
  /** Get an inbox with its stats */
  "GET /api/v1/inboxes/{inboxId}": {
    path: {
      inboxId: string;
    };
    query: Record<string, never>;
    body: never;
    response: {
      id: string;
      address: string;
      addressPrefix: string;
      name: string | null;
      /** Extra addresses of this inbox on its domain; mail to any of them lands here */
      aliases: Array<string>;
      tags: Array<string>;
      expiresAt: string | null;
      active: boolean;
      messageCount: number;
      createdAt: string;
      domain: {
        id: string | null;
        domain: string;
      };
      environment: {
        id: string;
        name: string;
        slug: string;
      };
      stats: {
        /** Messages in the inbox */
        messageCount: number;
        /** Messages whose email is not marked read */
        unreadCount: number;
        lastMessageAt: string | null;
        /** Total size of the raw messages */
        sizeBytes: number;
      };
    };
  };
  /** Change an inbox's aliases, tags or active flag (tenant-level key) */
  "PATCH /api/v1/inboxes/{inboxId}": {
    path: {
      inboxId: string;
    };
    query: Record<string, never>;
    body: {
      /** Up to 10 extra addresses on the inbox's domain: a local part (`sales`) or a full address; unique like inbox addresses */
      aliases?: Array<string>;
      tags?: Array<string>;
      /** false: mail to the inbox is refused (550) and its messages are kept; true: it receives again */
      active?: boolean;
    };
    response: Inbox;
  };
  /** Delete an inbox with its messages, their emails and files (tenant-level key) */
  "DELETE /api/v1/inboxes/{inboxId}": {
    path: {
      inboxId: string;
    };
    query: Record<string, never>;
    body: never;
    response: void;
  };
  /** List an inbox's keys (prefix only) */
  "GET /api/v1/inboxes/{inboxId}/api-keys": {
    path: {
      inboxId: string;
    };
    query: Record<string, never>;
    body: never;
    response: {
      data: Array<ApiKey>;
    };
  };
  /** Create an inbox-scoped key (the full key is returned only here) */
  "POST /api/v1/inboxes/{inboxId}/api-keys": {
    path: {
      inboxId: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      /** api: HTTP reads of the inbox; imap: IMAP login as the inbox address */
      scopes?: Array<"api" | "imap">;
      expiresAt?: string;
    };
    response: {
      id: string;
      name: string;
      /** First 8 characters of the key, for identification */
      prefix: string;
      active: boolean;
      environmentId: string | null;
      inboxId: string | null;
      scopes: Array<"api" | "imap">;
      lastUsedAt: string | null;
      expiresAt: string | null;
      createdAt: string;
      /** The full key: shown only in this response */
      key: string;
    };
  };
  /** Delete an inbox-scoped key */
  "DELETE /api/v1/inboxes/{inboxId}/api-keys/{keyId}": {
    path: {
      inboxId: string;
      keyId: string;
    };
    query: Record<string, never>;
    body: never;
    response: void;
  };
  /** Webhooks linked to the inbox */
  "GET /api/v1/inboxes/{inboxId}/hooks": {
    path: {
      inboxId: string;
    };
    query: {
      /** Page number, from 1 (max 1000000) */
      page?: number;
      /** Items per page (max 100) */
      perPage?: number;
    };
    body: never;
    response: {
      data: Array<Webhook>;
      currentPage: number;
      perPage: number;
      totalItems: number;
      totalPages: number;
      hasNextPage: boolean;
      /** Same as totalItems (the name the hosted service's SDK reads) */
      total: number;
    };
  };
  /** Link a webhook (webhookId) or create and link one (url); linking again is idempotent */
  "POST /api/v1/inboxes/{inboxId}/hooks": {
    path: {
      inboxId: string;
    };
    query: Record<string, never>;
    body: {
      /** Links this existing webhook */
      webhookId: string;
    } | {
      /** http:// or https:// URL; must not resolve to a loopback, private or link-local address */
      url: string;
      /** Events that fire the webhook (default ["email.received"]); allowed: email.received */
      events?: Array<string>;
      description?: string;
      active?: boolean;
    };
    response: {
      webhook: Webhook;
      /** This call created the webhook (its secret is shown in full) */
      created: boolean;
      /** This call created the link; false when it already existed */
      linked: boolean;
    };
  };
  /** Unlink a webhook from the inbox (the webhook itself stays) */
  "DELETE /api/v1/inboxes/{inboxId}/hooks/{webhookId}": {
    path: {
      inboxId: string;
      webhookId: string;
    };
    query: Record<string, never>;
    body: never;
    response: void;
  };
  /** List the messages of an inbox, newest first (with afterId: the ones after it, oldest first) */
  "GET /api/v1/inboxes/{inboxId}/messages": {
    path: {
      inboxId: string;
    };
    query: {
      /** Page number, from 1 (max 1000000) */
      page?: number;
      /** Items per page (max 100) */
      perPage?: number;
      /** Only messages received after this message of the inbox, oldest first (as on /messages/wait) */
      afterId?: string;
    };
    body: never;
    response: {
      data: Array<InboxMessage>;
      currentPage: number;
      perPage: number;
      totalItems: number;
      totalPages: number;
      hasNextPage: boolean;
      /** Same as totalItems (the name the hosted service's SDK reads) */
      total: number;
      /** Same as hasNextPage */
      hasMore: boolean;
    };
  };
  /** Delete every email of an inbox */
  "DELETE /api/v1/inboxes/{inboxId}/messages": {
    path: {
      inboxId: string;
    };
    query: Record<string, never>;
    body: never;
    response: {
      /** Emails deleted */
      deleted: number;
    };
  };
  /** Get one inbox message */
  "GET /api/v1/inboxes/{inboxId}/messages/{messageId}": {
    path: {
      inboxId: string;
      messageId: string;
    };
    query: Record<string, never>;
    body: never;
    response: InboxMessage;
  };
  /** Wait for the first matching message (long poll) */
  "GET /api/v1/inboxes/{inboxId}/messages/wait": {
    path: {
      inboxId: string;
    };
    query: {
      /** Longest wait in ms (max 60000) */
      timeout?: number;
      /** Case-insensitive substring of the subject */
      subject?: string;
      /** Case-insensitive substring of the sender */
      from?: string;
      /** Only messages stored after this message of the inbox */
      afterId?: string;
    };
    body: never;
    response: InboxMessage | void;
  };
  /** List chat-app integrations, newest first */
  "GET /api/v1/integrations": {
    path: Record<string, never>;
    query: {
      /** Page number, from 1 (max 1000000) */
      page?: number;
      /** Items per page (max 100) */
      perPage?: number;
    };
    body: never;
    response: {
      data: Array<ChatappIntegration>;
      currentPage: number;
      perPage: number;
      totalItems: number;
      totalPages: number;
      hasNextPage: boolean;
      /** Same as totalItems (the name the hosted service's SDK reads) */
      total: number;
    };
  };
  /** Add a chat-app incoming webhook or bot channel */
  "POST /api/v1/integrations": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      kind: "webhook" | "bot";
      name?: string;
      /** http:// or https:// URL; must not resolve to a loopback, private or link-local address */
      url?: string;
      botToken?: string;
      channelId?: string;
      guildId?: string;
      /** Inboxes whose emails fire it; empty (or omitted) means every email of the account */
      inboxIds?: Array<string>;
      active?: boolean;
    };
    response: ChatappIntegration;
  };
  /** Get a chat-app integration (credentials masked) */
  "GET /api/v1/integrations/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: ChatappIntegration;
  };
  /** Update a chat-app integration */
  "PUT /api/v1/integrations/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      /** http:// or https:// URL; must not resolve to a loopback, private or link-local address */
      url?: string;
      botToken?: string;
      channelId?: string;
      guildId?: string;
      /** Inboxes whose emails fire it; empty (or omitted) means every email of the account */
      inboxIds?: Array<string>;
      active?: boolean;
    };
    response: ChatappIntegration;
  };
  /** Delete a chat-app integration and its queued notifications */
  "DELETE /api/v1/integrations/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: void;
  };
  /** List activity-log entries, newest first */
  "GET /api/v1/logs": {
    path: Record<string, never>;
    query: {
      /** Page number, from 1 (max 1000000) */
      page?: number;
      /** Items per page (max 100) */
      perPage?: number;
      type?: "SMTP_RECEIVED" | "SPAM_CHECK" | "WEBHOOK" | "CHATAPP" | "CHATAPP_BOT" | "BULK_ACTION";
      status?: "SUCCESS" | "FAILED" | "PENDING";
      emailId?: string;
      environmentId?: string;
    };
    body: never;
    response: {
      data: Array<ActivityLogEntry>;
      currentPage: number;
      perPage: number;
      totalItems: number;
      totalPages: number;
      hasNextPage: boolean;
      /** Same as totalItems (the name the hosted service's SDK reads) */
      total: number;
    };
  };
  /** Resend a FAILED webhook or chat-app notification now */
  "POST /api/v1/logs/{logId}/resend": {
    path: {
      logId: string;
    };
    query: Record<string, never>;
    body: never;
    response: {
      /** The new attempt was delivered (2xx) */
      success: boolean;
      message: string;
      /** The log entry of the new attempt */
      newLogId: string;
    };
  };
  /** Every processing stage of one email */
  "GET /api/v1/logs/email/{emailId}": {
    path: {
      emailId: string;
    };
    query: {
      /** Page number, from 1 (max 1000000) */
      page?: number;
      /** Items per page (max 100) */
      perPage?: number;
    };
    body: never;
    response: {
      data: Array<ActivityLogEntry>;
      currentPage: number;
      perPage: number;
      totalItems: number;
      totalPages: number;
      hasNextPage: boolean;
      /** Same as totalItems (the name the hosted service's SDK reads) */
      total: number;
    };
  };
  /** Model Context Protocol over streamable HTTP (stateless, JSON responses); key in x-api-key or Authorization: Bearer */
  "POST /api/v1/mcp": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: Record<string, unknown> | Array<Record<string, unknown>>;
    response: Record<string, unknown> | unknown;
  };
  /** Server-sent events of the tenant (broadcast or distributed) */
  "GET /api/v1/realtime/events": {
    path: Record<string, never>;
    query: {
      /** The API key or dashboard session token, for clients that cannot set headers (EventSource) */
      token?: string;
      /** broadcast: this stream gets every event. distributed: the streams of one API key (and one environmentId filter) share the events, each going to exactly one of them, across all nodes. Requires an API key. */
      mode?: "broadcast" | "distributed";
      /** Only events of this environment */
      environmentId?: string;
      /** Resume after this event id, for clients that cannot send the Last-Event-ID header */
      lastEventId?: string;
    };
    body: never;
    response: Blob;
  };
  /** The account's custom storage, without credentials (404 STORAGE_NOT_CONFIGURED when mail stays with the service) */
  "GET /api/v1/storage": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    response: CustomStorage;
  };
  /** Store new mail in your own bucket. Checked first by writing, reading and deleting a probe object (400 STORAGE_CHECK_FAILED with the provider's error); 403 on plans without custom storage */
  "PUT /api/v1/storage": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** S3: AWS S3 or any S3-compatible service (MinIO, Ceph, R2, …); AZURE_BLOB: Azure Blob Storage; GCS: Google Cloud Storage */
      provider: "S3" | "AZURE_BLOB" | "GCS";
      /** The bucket (S3, GCS) or container (Azure) name */
      bucket: string;
      /** S3 region, such as eu-west-1 (default us-east-1) */
      region?: string;
      /** Service URL: an S3-compatible endpoint, an Azure blob endpoint for account-and-key credentials, or a GCS JSON API endpoint. Must resolve to a public address */
      endpoint?: string;
      /** S3: path-style URLs (endpoint/bucket/key), needed by most S3-compatible services. Default false */
      forcePathStyle?: boolean;
      /** Folder in the bucket under which Mailroom writes, such as "mailroom/" */
      prefix?: string;
      /** Keep no bodies and no snippet in Mailroom's database, only headers and envelope metadata (default false) */
      metadataOnly?: boolean;
      /** Per provider; stored encrypted (AES-256-GCM) and never returned or logged */
      credentials: {
        /** S3: access key id */
        accessKeyId?: string;
        /** S3: secret access key */
        secretAccessKey?: string;
        /** AZURE_BLOB: the storage account connection string (or accountName and accountKey) */
        connectionString?: string;
        /** AZURE_BLOB: storage account name */
        accountName?: string;
        /** AZURE_BLOB: storage account key */
        accountKey?: string;
        /** GCS: the service-account key file (JSON text) */
        serviceAccountJson?: string;
      };
    };
    response: CustomStorage;
  };
  /** Turn custom storage off: new mail is kept by the service again; mail already in the bucket stays there and readable */
  "DELETE /api/v1/storage": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    response: void;
  };
  /** The account this key belongs to: id, name, plan and effective limits */
  "GET /api/v1/tenant": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    response: {
      id: string;
      name: string;
      plan: "free" | "pro";
      /** The plan's limits with any operator exceptions applied */
      limits: {
        /** API requests per minute for the whole account */
        requestsPerMinute: number;
        /** Emails received per calendar month (UTC) */
        monthlyEmails: number;
        /** Whether mail may be stored in your own bucket */
        customStorage: boolean;
        /** How many of each the account may hold at once; creating one more answers 403 PLAN_LIMIT_REACHED */
        maxResources: {
          webhooks: number;
          chatappIntegrations: number;
          inboxes: number;
        };
      };
      createdAt: string;
    };
  };
  /** This month's email count against the quota, and the plan's limits */
  "GET /api/v1/usage": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    response: {
      /** The usage month, YYYY-MM (UTC) */
      month: string;
      /** When this usage month began (UTC) */
      periodStart: string;
      /** When the month ends and the count starts again from 0 */
      resetsAt: string;
      emails: {
        /** Emails received this month; deleting emails does not lower it */
        used: number;
        /** This account's monthly quota; past it, mail is refused at RCPT TO with 452 4.2.2 */
        limit: number;
        remaining: number;
      };
      /** Webhook deliveries this month; they do not count against a quota */
      webhooks: {
        /** Webhook delivery attempts this month (WEBHOOK log entries), retries included */
        deliveries: number;
        /** Attempts answered with 2xx */
        succeeded: number;
        /** Attempts that failed (each retry counts) */
        failed: number;
      };
      /** This account's plan and effective limits */
      plan: {
        name: "free" | "pro";
        /** API requests per minute for the whole account */
        requestsPerMinute: number;
        /** Emails received per calendar month (UTC) */
        monthlyEmails: number;
        /** Whether mail may be stored in your own bucket */
        customStorage: boolean;
        /** How many of each the account may hold at once; creating one more answers 403 PLAN_LIMIT_REACHED */
        maxResources: {
          webhooks: number;
          chatappIntegrations: number;
          inboxes: number;
        };
      };
      /** Every plan and its limits */
      plans: Record<string, {
        /** API requests per minute for the whole account */
        requestsPerMinute: number;
        /** Emails received per calendar month (UTC) */
        monthlyEmails: number;
        /** Whether mail may be stored in your own bucket */
        customStorage: boolean;
        /** How many of each the account may hold at once; creating one more answers 403 PLAN_LIMIT_REACHED */
        maxResources: {
          webhooks: number;
          chatappIntegrations: number;
          inboxes: number;
        };
      }>;
      /** false when this server runs without limits (MAILROOM_LIMITS=off, e.g. `mailroom local`): no quota, no rate limit */
      limitsEnforced: boolean;
    };
  };
  /** List the account's webhooks, newest first */
  "GET /api/v1/webhooks": {
    path: Record<string, never>;
    query: {
      /** Page number, from 1 (max 1000000) */
      page?: number;
      /** Items per page (max 100) */
      perPage?: number;
    };
    body: never;
    response: {
      data: Array<Webhook>;
      currentPage: number;
      perPage: number;
      totalItems: number;
      totalPages: number;
      hasNextPage: boolean;
      /** Same as totalItems (the name the hosted service's SDK reads) */
      total: number;
    };
  };
  /** Create a webhook (and with inboxId link it to that inbox); the response shows its signing secret once */
  "POST /api/v1/webhooks": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** http:// or https:// URL; must not resolve to a loopback, private or link-local address */
      url: string;
      /** Events that fire the webhook (default ["email.received"]); allowed: email.received */
      events?: Array<string>;
      description?: string;
      active?: boolean;
      /** Same as active (the spelling of the hosted service's clients); give one of the two */
      enabled?: boolean;
      /** Your own signing secret (16 to 256 characters) instead of a generated whsec_… one */
      secret?: string;
      /** Also link the new webhook to this inbox, in the same step */
      inboxId?: string;
    };
    response: Webhook;
  };
  /** Get a webhook (secret masked) */
  "GET /api/v1/webhooks/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: Webhook;
  };
  /** Update url, events, description, active (or enabled) or secret; fields left out keep their value */
  "PUT /api/v1/webhooks/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** http:// or https:// URL; must not resolve to a loopback, private or link-local address */
      url?: string;
      /** Events that fire the webhook (default ["email.received"]); allowed: email.received */
      events?: Array<string>;
      description?: string;
      active?: boolean;
      /** Same as active (the spelling of the hosted service's clients); give one of the two */
      enabled?: boolean;
      /** Your own signing secret (16 to 256 characters) instead of a generated whsec_… one */
      secret?: string;
    };
    response: Webhook;
  };
  /** Update url, events, description, active (or enabled) or secret; fields left out keep their value */
  "PATCH /api/v1/webhooks/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** http:// or https:// URL; must not resolve to a loopback, private or link-local address */
      url?: string;
      /** Events that fire the webhook (default ["email.received"]); allowed: email.received */
      events?: Array<string>;
      description?: string;
      active?: boolean;
      /** Same as active (the spelling of the hosted service's clients); give one of the two */
      enabled?: boolean;
      /** Your own signing secret (16 to 256 characters) instead of a generated whsec_… one */
      secret?: string;
    };
    response: Webhook;
  };
  /** Delete a webhook, its inbox links and queued deliveries (log entries stay) */
  "DELETE /api/v1/webhooks/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: void;
  };
  /** The webhook's delivery attempts (WEBHOOK log entries), newest first */
  "GET /api/v1/webhooks/{id}/logs": {
    path: {
      id: string;
    };
    query: {
      /** Page number, from 1 (max 1000000) */
      page?: number;
      /** Items per page (max 100) */
      perPage?: number;
      /** success, failed or pending (any case) */
      status?: "success" | "failed" | "pending" | "SUCCESS" | "FAILED" | "PENDING";
    };
    body: never;
    response: {
      data: Array<ActivityLogEntry>;
      currentPage: number;
      perPage: number;
      totalItems: number;
      totalPages: number;
      hasNextPage: boolean;
      /** Same as totalItems (the name the hosted service's SDK reads) */
      total: number;
    };
  };
  /** Replace the signing secret; the response shows the new one once */
  "POST /api/v1/webhooks/{id}/rotate-secret": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    response: Webhook;
  };
  /** Liveness: the process is up */
  "GET /healthz": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    response: {
      status: "ok";
    };
  };
  /** Prometheus metrics (text exposition format); needs Authorization: Bearer <MAILROOM_METRICS_TOKEN> */
  "GET /metrics": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    response: string;
  };
  /** Readiness: database, Redis (when configured) and blob store answer, and the node is not shutting down */
  "GET /readyz": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    response: {
      status: "ready" | "unavailable";
      /** Per dependency (database, redis, blobs): "ok" or the failure; "shutdown" appears while the node drains */
      checks: Record<string, string>;
    };
  };
}
