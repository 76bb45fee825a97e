import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '../../core/errors.js';
import { isSpooled } from '../../core/message-bytes.js';
import { extractWithinBudget, warmUpExtraction, type ExtractionLimits } from '../../core/extract.js';
import type { MailAuthenticator } from '../../ports/mail-authenticator.js';
import { storedRecipients } from '../../core/email-recipients.js';
import { emailSearchVector } from '../../core/search-vector.js';
import type { AnalysisInput, MessageAnalysis, MessageAnalyzer, SearchCopy } from '../../ports/message-analyzer.js';
import type { MimeParser, ParsedMessage } from '../../ports/mime-parser.js';

/**
 * The message in this thread's own memory. The SMTP reader's bytes sit in a growable
 * SharedArrayBuffer (handed to a worker without a copy), and V8 makes views into such memory through
 * a slow path: postal-mime, which makes one per line, parsed a 10 KB message in 376 µs there against
 * 95 µs in an ArrayBuffer (docs/decisions.md D32). The copy costs about 2 µs.
 */
function unshared(raw: Buffer): Buffer {
  if (!(raw.buffer instanceof SharedArrayBuffer)) return raw;
  const own = Buffer.allocUnsafeSlow(raw.byteLength);
  own.set(raw);
  return own;
}

/** The copy's vector from the fields the ingest service stores for it (its `prepare`). */
function searchVectorOf(parsed: ParsedMessage, mailFrom: string, copy: SearchCopy): string {
  return emailSearchVector({
    subject: parsed.subject,
    from: parsed.from || mailFrom,
    ...storedRecipients(parsed, copy.deliveryAddresses),
    textBody: copy.withBody ? parsed.text : null,
  });
}

/** Parses, authenticates and extracts on the calling thread; also what each pool worker runs. */
export class InlineMessageAnalyzer implements MessageAnalyzer {
  constructor(
    private readonly parser: MimeParser,
    private readonly authenticator: MailAuthenticator,
    private readonly extractionLimits: ExtractionLimits,
    /** The database is PostgreSQL, whose search vector Mailroom builds (D53): build it here, not on the main thread (D57). */
    readonly buildsSearchVectors = false,
  ) {
    warmUpExtraction();
  }

  async analyze(message: AnalysisInput): Promise<MessageAnalysis> {
    const raw = isSpooled(message.raw) ? await readFile(message.raw.path) : unshared(message.raw);
    const input = { raw, clientIp: message.clientIp, helo: message.helo, mailFrom: message.mailFrom, searchCopies: message.searchCopies };
    const [parsed, auth] = await Promise.all([this.parse(input.raw), this.authenticator.authenticate(input)]);
    const analysis: MessageAnalysis = { parsed, auth, ...extractWithinBudget(parsed.text ?? '', parsed.html, parsed.subject, this.extractionLimits) };
    if (this.buildsSearchVectors && message.searchCopies !== undefined) analysis.searchVectors = message.searchCopies.map((copy) => searchVectorOf(parsed, message.mailFrom, copy));
    return analysis;
  }

  async close(): Promise<void> {}

  private async parse(raw: Buffer): Promise<ParsedMessage> {
    try {
      return await this.parser.parse(raw);
    } catch (error) {
      throw new InvalidInputError('MESSAGE_UNPARSEABLE', `Message could not be parsed: ${(error as Error).message}`);
    }
  }
}
