/** Whether an address (a listen host or a peer's IP) is this machine only: 127.0.0.0/8, ::1, localhost. */
export const isLoopback = (host: string | undefined): boolean =>
  host !== undefined && /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i.test(host);
