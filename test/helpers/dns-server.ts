import { createSocket } from 'node:dgram';
import type { Socket } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;
const NXDOMAIN = 3;

/** Records per owner name (lower case, no trailing dot). TXT strings longer than 255 bytes are split. */
export interface ZoneRecords {
  TXT?: string[];
  MX?: Array<{ exchange: string; priority: number }>;
  A?: string[];
  AAAA?: string[];
  /** Reverse names (`1.0.0.127.in-addr.arpa`): the host names they point to. */
  PTR?: string[];
  /** Never answer queries for this name, so lookups of it time out. */
  silent?: boolean;
}
export type Zone = Record<string, ZoneRecords>;

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, the form MAILROOM_DNS_SERVERS takes. */
  address: string;
  port: number;
  /** Names asked for, in order (`name/TYPE`). */
  queries: string[];
  close(): Promise<void>;
}

function chunks(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const out: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += 255) out.push(bytes.subarray(offset, offset + 255).toString('utf8'));
  return out.length > 0 ? out : [''];
}

const ownerName = (name: string) => name.toLowerCase().replace(/\.$/, '');

function answersFor(zone: Zone, name: string, type: number): Array<Record<string, unknown>> {
  const records = zone[ownerName(name)];
  if (records === undefined) return [];
  const common = { name, class: Packet.CLASS.IN, ttl: 60 };
  switch (type) {
    case Packet.TYPE.TXT:
      return (records.TXT ?? []).map((text) => ({ ...common, type, data: chunks(text) }));
    case Packet.TYPE.MX:
      return (records.MX ?? []).map((mx) => ({ ...common, type, exchange: mx.exchange, priority: mx.priority }));
    case Packet.TYPE.A:
      return (records.A ?? []).map((address) => ({ ...common, type, address }));
    case Packet.TYPE.AAAA:
      return (records.AAAA ?? []).map((address) => ({ ...common, type, address }));
    case Packet.TYPE.PTR:
      return (records.PTR ?? []).map((domain) => ({ ...common, type, domain }));
    default:
      return [];
  }
}

/**
 * An authoritative DNS server on 127.0.0.1 (UDP and TCP on the same ephemeral port, as resolvers
 * retry truncated answers over TCP on the same port) answering from `zone`; unknown names get
 * NXDOMAIN. The zone object may be changed between tests.
 */
export async function startDnsServer(zone: Zone): Promise<TestDnsServer> {
  const queries: string[] = [];
  const handle: dns2.DnsHandler = (request, send) => {
    for (const question of request.questions) {
      const typeName = Object.entries(Packet.TYPE).find(([, value]) => value === question.type)?.[0] ?? String(question.type);
      queries.push(`${question.name}/${typeName}`);
    }
    if (request.questions.some((q) => zone[ownerName(q.name)]?.silent)) return;
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    for (const question of request.questions) {
      if (zone[ownerName(question.name)] === undefined) response.header.rcode = NXDOMAIN;
      response.answers.push(...(answersFor(zone, question.name, question.type) as never[]));
    }
    void send(response);
  };
  for (let attempt = 0; ; attempt++) {
    const udp = dns2.createUDPServer(handle);
    await udp.listen(0, '127.0.0.1');
    const port = udp.address().port;
    const tcp = dns2.createTCPServer(handle);
    const sockets = new Set<Socket>();
    tcp.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, '127.0.0.1', () => resolve());
      });
    } catch (error) {
      udp.close();
      if (attempt < 5 && (error as NodeJS.ErrnoException).code === 'EADDRINUSE') continue;
      throw error;
    }
    const close = async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all([new Promise<void>((resolve) => udp.close(() => resolve())), new Promise<void>((resolve) => tcp.close(() => resolve()))]);
    };
    return { address: `127.0.0.1:${port}`, port, queries, close };
  }
}

/** A UDP socket that reads queries and never answers: every lookup against it times out. */
export async function startSilentDnsServer(): Promise<{ address: string; received: () => number; close(): Promise<void> }> {
  const socket = createSocket('udp4');
  let received = 0;
  socket.on('message', () => {
    received++;
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    received: () => received,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
