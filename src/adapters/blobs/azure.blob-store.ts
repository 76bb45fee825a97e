import type { Readable } from 'node:stream';
import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { BlobServiceClient, RestError, StorageSharedKeyCredential, newPipeline, type ContainerClient, type RequestPolicyFactory } from '@azure/storage-blob';
import { NotFoundError } from '../../core/errors.js';
import type { BlobInfo, BlobStore, ByteRange } from '../../ports/blob-store.js';
import { readAll } from './blob-streams.js';

export type AzureCredentials = { connectionString: string } | { accountName: string; accountKey: string };

export interface AzureLocation {
  container: string;
  /** Prepended to every blob name ("" or ending in "/"). */
  prefix: string;
  credentials: AzureCredentials;
  /** Blob service URL for account-and-key credentials; absent: https://<account>.blob.core.windows.net. */
  endpoint?: string;
  /** Agents every connection goes through (a tenant's container: the egress guard); absent: the SDK's own. */
  agents?: AzureAgents;
}

export interface AzureAgents {
  httpAgent: HttpAgent;
  httpsAgent: HttpsAgent;
}

/** Streamed bodies are uploaded as blocks of this size, two at a time. */
const BLOCK_BYTES = 4 * 1024 * 1024;

const isNotFound = (error: unknown): boolean => error instanceof RestError && error.statusCode === 404;

/** Sends every request of the pipeline through the given agents (set last, just before the HTTP client). */
function agentPolicy(agents: AzureAgents): RequestPolicyFactory {
  return {
    create: (next) => ({
      sendRequest: (request) => {
        request.agent = request.url.startsWith('https:') ? agents.httpsAgent : agents.httpAgent;
        return next.sendRequest(request);
      },
    }),
  };
}

/** The service URL and credential, for a connection string as the SDK itself reads it. */
function serviceUrlAndCredential({ credentials, endpoint }: AzureLocation) {
  if ('connectionString' in credentials) {
    const parsed = BlobServiceClient.fromConnectionString(credentials.connectionString);
    return { url: parsed.url, credential: parsed.credential };
  }
  return {
    url: endpoint ?? `https://${credentials.accountName}.blob.core.windows.net`,
    credential: new StorageSharedKeyCredential(credentials.accountName, credentials.accountKey),
  };
}

function serviceClient(location: AzureLocation): BlobServiceClient {
  const { url, credential } = serviceUrlAndCredential(location);
  const pipeline = newPipeline(credential);
  if (location.agents !== undefined) pipeline.factories.push(agentPolicy(location.agents));
  return new BlobServiceClient(url, pipeline);
}

/** Blobs as block blobs in an Azure Blob Storage container. */
export class AzureBlobStore implements BlobStore {
  private readonly container: ContainerClient;

  constructor(private readonly location: AzureLocation) {
    this.container = serviceClient(location).getContainerClient(location.container);
  }

  private blob(key: string) {
    return this.container.getBlockBlobClient(this.location.prefix + key);
  }

  async put(key: string, data: Buffer | Readable, contentType: string): Promise<string> {
    const options = { blobHTTPHeaders: { blobContentType: contentType } };
    if (Buffer.isBuffer(data)) await this.blob(key).uploadData(data, options);
    else await this.blob(key).uploadStream(data, BLOCK_BYTES, 2, options);
    return key;
  }

  /** The SDK reads the file in block-sized ranges itself. */
  async putFile(key: string, path: string, contentType: string): Promise<string> {
    await this.blob(key).uploadFile(path, { blobHTTPHeaders: { blobContentType: contentType }, blockSize: BLOCK_BYTES, concurrency: 2 });
    return key;
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const count = range?.end === undefined ? undefined : range.end - range.start + 1;
      const response = await this.blob(key).download(range?.start ?? 0, count);
      return response.readableStreamBody as Readable;
    } catch (error) {
      if (isNotFound(error)) throw new NotFoundError('BLOB_NOT_FOUND', `no blob at ${key}`);
      throw error;
    }
  }

  async getBuffer(key: string): Promise<Buffer> {
    return readAll(await this.getStream(key));
  }

  async delete(key: string): Promise<void> {
    await this.blob(key).deleteIfExists();
  }

  async exists(key: string): Promise<boolean> {
    return this.blob(key).exists();
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    for await (const item of this.container.listBlobsFlat({ prefix: this.location.prefix + prefix })) {
      yield {
        key: item.name.slice(this.location.prefix.length),
        size: item.properties.contentLength ?? 0,
        lastModified: item.properties.lastModified,
      };
    }
  }
}
