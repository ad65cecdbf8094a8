// A small seeded PRNG, so that a simulation names its pods and places them the same way on every
// run: same input, same timeline.

/** FNV-1a of a string: a 32-bit seed from the simulated Deployment's identity. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h >>> 0
}

/** mulberry32: a 32-bit generator with a full period, good enough for names and tie-breaks. */
export class Random {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n)
  }

  /** The generator's state, to save and resume it (the simulator's state is plain data). */
  get seed(): number {
    return this.state
  }
}

// upstream: k8s.io/apimachinery/pkg/util/rand — the alphabet of generated names: no vowels and no
// look-alike characters, so that names never spell words.
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789'

/** upstream: utilrand.String(n), from the seeded generator. */
export function randomSuffix(random: Random, n = 5): string {
  let out = ''
  for (let i = 0; i < n; i++) out += ALPHANUMS[random.int(ALPHANUMS.length)]
  return out
}

// upstream: names.SimpleNameGenerator — the generateName prefix is cut so that the name fits in 63.
const MAX_NAME_LENGTH = 63
const RANDOM_LENGTH = 5

/** The name the API server gives a pod created with generateName `<base>`. */
export function generateName(base: string, random: Random): string {
  const prefix =
    base.length > MAX_NAME_LENGTH - RANDOM_LENGTH ? base.slice(0, MAX_NAME_LENGTH - RANDOM_LENGTH) : base
  return `${prefix}${randomSuffix(random, RANDOM_LENGTH)}`
}
