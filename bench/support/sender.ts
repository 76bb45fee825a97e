import { startDnsServer, type TestDnsServer } from '../../test/helpers/dns-server.js';
import { buildMailroom } from './mailroom.js';
import { assertSmtpSourceInstalled } from './smtp-source.js';

/** The benches' sender: its domain's SPF allows loopback and it publishes DMARC, so every message really passes the checks. */
export const BENCH_SENDER = 'bench@sender.bench.example';

/** A loopback DNS server answering for the bench sender's domain. */
export function startSenderDns(): Promise<TestDnsServer> {
  return startDnsServer({
    'sender.bench.example': { TXT: ['v=spf1 ip4:127.0.0.0/8 -all'] },
    '_dmarc.sender.bench.example': { TXT: ['v=DMARC1; p=none'] },
  });
}

/** What every SMTP-driven bench checks first: smtp-source is installed, `--from` is valid, and dist is built when it is used. */
export function prepareSmtpBench(build: string): void {
  assertSmtpSourceInstalled();
  if (build !== 'dist' && build !== 'src') throw new Error('--from must be dist or src');
  if (build === 'dist') buildMailroom();
}

/** The command-line options of the benches that send the bench:smtp load (bench/README.md), for parseArgs. */
export const SMTP_LOAD_OPTIONS = {
  messages: { type: 'string', default: '5000' },
  sessions: { type: 'string', default: '20' },
  size: { type: 'string', default: '10240' },
  warmup: { type: 'string', default: '200' },
  workers: { type: 'string' },
  from: { type: 'string', default: 'dist' },
} as const;
