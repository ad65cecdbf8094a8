// Hex digests for the identities the tool makes up (UIDs, image digests). node:crypto brings
// ~5-9 ms of Node internals (streams among them) into a process; a pass over objects that already
// have their UIDs never hashes, so the module is fetched on the first digest instead of at load.

export function hexDigest(algorithm: 'sha1' | 'sha256', text: string): string {
  return process.getBuiltinModule('node:crypto').createHash(algorithm).update(text).digest('hex')
}
