// Go's integer semantics where upstream relies on them: int32 wrap-around, strconv parsers with
// their exact accepted spellings and ranges. JavaScript numbers are exact below 2^53, so int32
// arithmetic is done in doubles and wrapped; int64 values (revisions) are handled as BigInt.

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
export const MAX_INT32 = 2147483647

/** Wraps a whole number to int32 as Go's int32 arithmetic does. */
export function i32(n: number): number {
  return n | 0
}

/** int32 multiplication with Go's wrap-around. */
export function mul32(a: number, b: number): number {
  return Math.imul(a, b)
}

const DECIMAL = /^[+-]?[0-9]+$/

/** strconv.ParseInt(s, 10, 64): undefined where Go returns an error. */
export function parseInt64(s: string): bigint | undefined {
  if (!DECIMAL.test(s)) return undefined
  const v = BigInt(s)
  return v < INT64_MIN || v > INT64_MAX ? undefined : v
}

/** strconv.Atoi on a 64-bit platform. */
export function atoi(s: string): bigint | undefined {
  return parseInt64(s)
}

/** strconv.ParseUint(s, 10, 32) limited to MaxInt32 (upstream: getNonNegativeInt32FromAnnotation). */
export function parseNonNegativeInt32(s: string): number | undefined {
  if (!/^[0-9]+$/.test(s)) return undefined
  const v = BigInt(s)
  return v > BigInt(MAX_INT32) ? undefined : Number(v)
}

/** int32(x) of a Go int64/int value: keeps the low 32 bits. */
export function toInt32(v: bigint): number {
  return Number(BigInt.asIntN(32, v))
}
