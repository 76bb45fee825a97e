/** Something outside the process the node cannot serve without (database, Redis, blob store). */
export interface Dependency {
  name: string;
  /** Resolves when the dependency answers; rejects (or outlasts the timeout) when it does not. */
  probe(): Promise<unknown>;
}

export interface ReadinessReport {
  ready: boolean;
  /** Per dependency: "ok" or what went wrong; `shutdown` is present while the node is stopping. */
  checks: Record<string, string>;
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error)) || 'failed';

function withTimeout(work: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Whether this node should receive traffic (GET /readyz): every dependency answers, and it is not
 * shutting down (a load balancer stops sending it new connections while it drains).
 */
export class ReadinessService {
  private stopping = false;

  constructor(
    private readonly dependencies: readonly Dependency[],
    private readonly timeoutMs: number,
  ) {}

  markStopping(): void {
    this.stopping = true;
  }

  async report(): Promise<ReadinessReport> {
    const results = await Promise.all(
      this.dependencies.map(async (dependency) => {
        try {
          await withTimeout(dependency.probe(), this.timeoutMs);
          return [dependency.name, 'ok'] as const;
        } catch (error) {
          return [dependency.name, describe(error)] as const;
        }
      }),
    );
    const checks: Record<string, string> = Object.fromEntries(results);
    if (this.stopping) checks.shutdown = 'node is shutting down';
    return { ready: Object.values(checks).every((value) => value === 'ok'), checks };
  }
}
