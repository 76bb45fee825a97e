import { ConfigError } from './config.js';
import type { RawEnv } from './env.js';

/** `mailroom mcp` (docs/mcp.md): which Mailroom API the stdio MCP server calls, with which key. */
export interface McpClientSettings {
  /** Base address without /api/v1. */
  apiUrl: string;
  apiKey: string;
}

export const DEFAULT_API_URL = 'https://localhost:8443';

function apiUrl(env: RawEnv): string {
  const raw = env.MAILROOM_API_URL ?? DEFAULT_API_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('MAILROOM_API_URL', `"${raw}" is not a URL; expected e.g. ${DEFAULT_API_URL}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError('MAILROOM_API_URL', 'must be an https:// (or http://) URL');
  // The address users copy from the docs often ends in /api/v1; the client adds that itself.
  return url.toString().replace(/\/+$/, '').replace(/\/api\/v1$/, '');
}

/** Read by `mailroom mcp` only; the service itself does not use these. */
export function mcpClientSettings(env: RawEnv): McpClientSettings {
  const apiKey = env.MAILROOM_API_KEY;
  if (apiKey === undefined) throw new ConfigError('MAILROOM_API_KEY', 'is required: an API key (tenant-level, or inbox-scoped to limit the agent to one inbox)');
  return { apiUrl: apiUrl(env), apiKey };
}
