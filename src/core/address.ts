/** Lower-cases and trims an address; the domain part is compared case-insensitively everywhere. */
export function normaliseAddress(address: string): string {
  return address.trim().replace(/^<|>$/g, '').toLowerCase();
}

export function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? '' : address.slice(at + 1).toLowerCase();
}

export function localPartOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? address : address.slice(0, at);
}
