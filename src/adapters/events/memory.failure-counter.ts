import { FailureWindow } from '../../core/login-throttle.js';
import type { FailureCounter } from '../../ports/failure-counter.js';

export class MemoryFailureCounter implements FailureCounter {
  private readonly window: FailureWindow;

  constructor(windowMs: number, now: () => number = Date.now) {
    this.window = new FailureWindow(windowMs, now);
  }

  async count(key: string): Promise<number> {
    return this.window.count(key);
  }

  async fail(key: string): Promise<void> {
    this.window.fail(key);
  }
}
