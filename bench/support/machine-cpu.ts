import { cpus } from 'node:os';

/**
 * Seconds the machine's CPUs have spent busy (user, nice, system, interrupts) since boot, summed
 * over all of them: the difference over a run divided by its length is how many cores were busy,
 * whoever used them (the server, the load generator, the kernel).
 */
export function machineBusySeconds(): number {
  let ms = 0;
  for (const { times } of cpus()) ms += times.user + times.nice + times.sys + times.irq;
  return ms / 1000;
}
