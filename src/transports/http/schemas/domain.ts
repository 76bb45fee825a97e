import { Type } from '@sinclair/typebox';
import { DNS_RECORD_STATUSES, DNS_RECORD_TYPES } from '../../../core/custom-domain.js';
import { ErrorBody, IsoDate, Nullable } from './common.js';

export const DnsRecordSchema = Type.Object(
  {
    type: Type.Union(DNS_RECORD_TYPES.map((type) => Type.Literal(type)), { description: 'MX routes mail to Mailroom; TXT proves ownership' }),
    name: Type.String({ description: 'Owner name to publish the record at (fully qualified, punycode)', examples: ['_mailroom.mail.example.com'] }),
    value: Type.String({ description: 'MX: the host to point at; TXT: the exact text', examples: ['mailroom-verification=3f2a…'] }),
    priority: Type.Optional(Type.Integer({ description: 'MX preference (MX only)', examples: [10] })),
    ttl: Type.Integer({ description: 'Suggested TTL in seconds' }),
    status: Type.Union(
      DNS_RECORD_STATUSES.map((status) => Type.Literal(status)),
      { description: 'pending: never checked; verified: found at the last check; failed: not found or wrong at the last check (see error)' },
    ),
    checkedAt: Nullable(IsoDate),
    error: Nullable(Type.String({ description: 'Why the last check failed: missing record, wrong value (with what was found) or lookup failure' })),
  },
  { $id: 'DnsRecord', title: 'DnsRecord' },
);

const domainFields = {
  id: Type.String({ description: 'Domain identifier' }),
  domain: Type.String({ description: 'Domain name, lower-case ASCII (IDN in punycode)', examples: ['mail.example.com'] }),
  unicodeDomain: Type.String({ description: 'The same name with IDN labels decoded, for display' }),
  verified: Type.Boolean({ description: 'Ownership verified through DNS; mail is received only when verified and enabled' }),
  enabled: Type.Boolean({ description: 'Whether reception is enabled' }),
  createdAt: IsoDate,
};

/** Spec 2.7. */
export const DomainSchema = Type.Object(domainFields, { $id: 'Domain', title: 'Domain' });

export const DomainDetailSchema = Type.Object(
  {
    ...domainFields,
    verificationCode: Type.String({ description: 'The code the TXT record carries; POST /domains/:domain/verify takes it as `code`' }),
    records: Type.Array(Type.Ref(DnsRecordSchema), { description: 'The records to publish, each with the result of its last check' }),
    lastCheckedAt: Nullable(IsoDate),
  },
  { $id: 'DomainDetail', title: 'DomainDetail' },
);

export const CreateDomainBody = Type.Object({ domain: Type.String({ minLength: 1, maxLength: 300, description: 'Domain name; IDN accepted', examples: ['mail.example.com'] }) });

export const DomainNameParam = Type.Object({ domain: Type.String({ minLength: 1, maxLength: 300, description: 'The domain name (not the id)' }) });

export const VerifyDomainBody = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 200, description: 'The verificationCode shown when the domain was added' }),
});

export const SetupDnsProviderBody = Type.Object({
  dnsproviderApiToken: Type.String({ minLength: 1, maxLength: 1000, description: 'DNS provider API token with DNS edit permission on the zone; used for this request only, never stored' }),
  zoneId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Provider zone id; found by the longest zone name matching the domain when omitted' })),
});

export const DnsProviderSetupSchema = Type.Object(
  {
    domain: Type.Ref(DomainDetailSchema),
    zone: Type.Object({ id: Type.String(), name: Type.String() }),
    changes: Type.Array(
      Type.Object({
        type: Type.Union(DNS_RECORD_TYPES.map((type) => Type.Literal(type))),
        name: Type.String(),
        action: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('unchanged')]),
      }),
      { description: 'What was done at the provider for each record' },
    ),
  },
  { title: 'DnsProviderSetup' },
);

/** 400 from verify when a record does not check out: the error body plus every record's result. */
export const VerificationFailedBody = Type.Object(
  { ...ErrorBody.properties, records: Type.Optional(Type.Array(Type.Ref(DnsRecordSchema))) },
  { title: 'VerificationFailed', description: 'Error body; on failed DNS verification `records` carries the result of every record' },
);
