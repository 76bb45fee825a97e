import type { LookupAddress } from 'node:dns';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIP } from 'node:net';
import type { StorageCredentials, StorageTarget } from '../../core/custom-storage.js';
import { isBlockedAddress } from '../../core/egress.js';
import { InvalidInputError } from '../../core/errors.js';
import type { DnsResolve } from '../../ports/dns-resolver.js';
import { guardedLookup, type LookupAll } from '../http/guarded-lookup.js';
import { startGuardedProxy, type GuardedProxy } from './guarded-proxy.js';

/** HTTP agents whose every new connection resolves through the egress guard. */
export interface GuardedAgents {
  httpAgent: HttpAgent;
  httpsAgent: HttpsAgent;
}

/** The guarded agents, and a guarded forward proxy for an SDK that takes no agent (GCS). */
export interface StorageEgress extends GuardedAgents {
  proxy: GuardedProxy;
}

/** `dns.lookup` over the service's resolver (MAILROOM_DNS_SERVERS): every A and AAAA answer. */
export function lookupVia(resolve: DnsResolve): LookupAll {
  return (hostname, _options, callback) => {
    const family = (rrtype: 'A' | 'AAAA', version: 4 | 6) =>
      (resolve(hostname, rrtype) as Promise<string[]>).then((list) => list.map((address): LookupAddress => ({ address, family: version }))).catch(() => []);
    void Promise.all([family('A', 4), family('AAAA', 6)]).then(([v4, v6]) => {
      const addresses = [...v4, ...v6];
      if (addresses.length > 0) return callback(null, addresses);
      return callback(Object.assign(new Error(`host ${hostname} could not be resolved`), { code: 'ENOTFOUND' }), []);
    });
  };
}

export function guardedAgents(lookupAll: LookupAll): GuardedAgents {
  const lookup = guardedLookup(lookupAll);
  return { httpAgent: new HttpAgent({ keepAlive: true, lookup }), httpsAgent: new HttpsAgent({ keepAlive: true, lookup }) };
}

/** Everything tenants' buckets connect through; close the proxy when the node stops. */
export async function storageEgress(lookupAll: LookupAll): Promise<StorageEgress> {
  return { ...guardedAgents(lookupAll), proxy: await startGuardedProxy(guardedLookup(lookupAll)) };
}

const forbidden = (field: string, message: string) => new InvalidInputError('STORAGE_ENDPOINT_FORBIDDEN', message, { field });

/** The Azure SDK's own reading of a connection string: the blob service URL it will call. The SDK loads only here (D34). */
async function azureServiceUrl(connectionString: string): Promise<string> {
  // Development storage means the emulator on loopback, or a proxy of the caller's choosing.
  if (/(^|;)\s*(UseDevelopmentStorage|DevelopmentStorageProxyUri)\s*=/i.test(connectionString)) {
    throw forbidden('credentials.connectionString', 'development-storage settings (UseDevelopmentStorage, DevelopmentStorageProxyUri) are not accepted');
  }
  const { BlobServiceClient } = await import('@azure/storage-blob');
  try {
    return BlobServiceClient.fromConnectionString(connectionString).url;
  } catch {
    throw new InvalidInputError('INVALID_STORAGE_CONFIG', 'credentials.connectionString is not an Azure Storage connection string', { field: 'credentials.connectionString' });
  }
}

const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');

/** Every host the SDK will connect to that the customer chose, with the request field it came from. */
export async function sdkHosts(target: StorageTarget, credentials: StorageCredentials): Promise<Array<{ host: string; field: string }>> {
  if (credentials.provider === 'AZURE_BLOB') {
    if ('connectionString' in credentials) return [{ host: hostOf(await azureServiceUrl(credentials.connectionString)), field: 'credentials.connectionString' }];
    return [{ host: hostOf(target.endpoint ?? `https://${credentials.accountName}.blob.core.windows.net`), field: target.endpoint ? 'endpoint' : 'credentials.accountName' }];
  }
  if (target.endpoint === null) return [];
  const host = hostOf(target.endpoint);
  // Without path style the S3 SDK calls <bucket>.<endpoint host> (virtual-hosted), a name of its own.
  const virtualHosted = credentials.provider === 'S3' && !target.forcePathStyle && isIP(host) === 0 ? [{ host: `${target.bucket}.${host}`, field: 'bucket' }] : [];
  return [{ host, field: 'endpoint' }, ...virtualHosted];
}

/**
 * Refuses a configuration whose SDK would connect to a loopback, private, link-local or reserved
 * address (the cloud metadata address included), as webhooks do. The agents from guardedAgents
 * check again on every connection, so a later DNS change cannot reach them either.
 */
export function storageEndpointGuard(lookupAll: LookupAll) {
  const resolveAll = (host: string) =>
    new Promise<LookupAddress[]>((resolve) => lookupAll(host, { all: true }, (error, addresses) => resolve(error ? [] : addresses)));
  return async (target: StorageTarget, credentials: StorageCredentials): Promise<void> => {
    for (const { host, field } of await sdkHosts(target, credentials)) {
      const addresses = isIP(host) === 0 ? await resolveAll(host) : [{ address: host, family: isIP(host) }];
      if (addresses.length === 0 || addresses.some((a) => isBlockedAddress(a.address))) {
        throw forbidden(field, `storage host ${host} does not resolve to a public address`);
      }
    }
  };
}
