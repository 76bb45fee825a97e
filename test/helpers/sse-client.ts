import { request as httpsRequest, Agent } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { EventSource } from 'eventsource';
import { httpsFetch } from './https-fetch.js';

export interface ReceivedEvent {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Collects events and lets a test await the one it expects (no sleeping). */
export class EventCollector {
  readonly events: ReceivedEvent[] = [];
  private waiters: Array<{ match: (e: ReceivedEvent) => boolean; resolve: (e: ReceivedEvent) => void }> = [];
  private readonly listeners: Array<() => void> = [];

  /** Called after every event (for conditions that span several collectors). */
  onEvent(listener: () => void): void {
    this.listeners.push(listener);
  }

  push(event: ReceivedEvent): void {
    this.events.push(event);
    for (const listener of this.listeners) listener();
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.match(event)) return true;
      waiter.resolve(event);
      return false;
    });
  }

  /** Resolves with the first event (already received or future) that matches. */
  next(match: (e: ReceivedEvent) => boolean, timeoutMs = 10_000): Promise<ReceivedEvent> {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching event within ${timeoutMs} ms; got ${this.events.map((e) => e.type).join(', ')}`)), timeoutMs);
      this.waiters.push({ match, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  }

  ofType(type: string): ReceivedEvent[] {
    return this.events.filter((e) => e.type === type);
  }
}

export interface SseTarget {
  baseUrl: string;
  ca: Buffer;
}

/** A real EventSource (the eventsource package), authenticated by header or by `token` query. */
export function openEventSource(target: SseTarget, options: { apiKey: string; query?: Record<string, string>; keyInQuery?: boolean }) {
  const url = new URL('/api/v1/realtime/events', target.baseUrl);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
  if (options.keyInQuery) url.searchParams.set('token', options.apiKey);
  const baseFetch = httpsFetch(target.ca);
  const collector = new EventCollector();
  const source = new EventSource(url, {
    fetch: (input, init) => baseFetch(input, { ...init, headers: { ...init?.headers, ...(options.keyInQuery ? {} : { 'x-api-key': options.apiKey }) } }),
  });
  source.onmessage = (message) => collector.push({ id: message.lastEventId, ...JSON.parse(message.data) });
  return {
    source,
    collector,
    close() {
      source.close();
      baseFetch.close();
    },
  };
}

/** A raw HTTPS reader of the stream: exact bytes, status and headers; can stop reading (pause). */
export class RawSseReader {
  readonly collector = new EventCollector();
  text = '';
  ended: Promise<void>;
  private buffer = '';
  private constructor(
    readonly response: IncomingMessage,
    private readonly agent: Agent,
  ) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => this.consume(chunk));
    this.ended = new Promise((resolve) => response.once('close', () => resolve()));
  }

  static open(target: SseTarget, path: string, headers: Record<string, string>): Promise<RawSseReader> {
    const agent = new Agent({ ca: target.ca });
    return new Promise((resolve, reject) => {
      const req = httpsRequest(new URL(path, target.baseUrl), { headers, agent }, (res) => resolve(new RawSseReader(res, agent)));
      req.on('error', reject);
      req.end();
    });
  }

  /** Reads the whole body of a non-stream reply (errors). */
  async body(): Promise<string> {
    await this.ended;
    return this.text;
  }

  close(): void {
    this.response.destroy();
    this.agent.destroy();
  }

  private consume(chunk: string): void {
    this.text += chunk;
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data !== undefined) this.collector.push({ id, ...JSON.parse(data) });
    }
  }
}

/** Resolves once `condition` holds, re-checked after each event any of `collectors` receives. */
export function until(collectors: EventCollector[], condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  if (condition()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => ((done = true), reject(new Error(`condition not met within ${timeoutMs} ms`))), timeoutMs);
    for (const collector of collectors) {
      collector.onEvent(() => {
        if (done || !condition()) return;
        done = true;
        clearTimeout(timer);
        resolve();
      });
    }
  });
}
