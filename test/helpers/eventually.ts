/**
 * Re-checks `probe` until it returns a value (not undefined) or the deadline passes. Only for state
 * that has no event to await (rows a background worker writes after its HTTP request returned).
 */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
