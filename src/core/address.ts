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

/** The entries of `addresses` that are `own` (case-insensitively): how a list is narrowed to one recipient's view. */
export function onlyAddress(addresses: string[], own: string): string[] {
  const wanted = own.toLowerCase();
  return addresses.filter((address) => address.toLowerCase() === wanted);
}
