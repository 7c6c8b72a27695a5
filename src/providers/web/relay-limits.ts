/** The relay's limits, each checked and with its default filled in. */
export interface RelayLimits {
  maxFramesPerWindow: number
  rateWindowMs: number
  maxBufferedBytes: number
  stallTimeoutMs: number
  framesPerTurn: number
}

/**
 * The limits of the relay's options, with their defaults (`RelayOptions`
 * documents each). A limit that is not a number greater than 0, or a count
 * that is not whole, is a `TypeError` naming it, thrown before the relay
 * starts anything: a window of `NaN` would end at once and let every burst
 * through, and a turn of 0 frames would never write. A window longer than a
 * timer holds is clamped where it is timed, in `relayClientMachine`.
 */
export function relayLimits(options: Partial<RelayLimits>): RelayLimits {
  return {
    maxFramesPerWindow: count(options.maxFramesPerWindow, 'maxFramesPerWindow', 200),
    rateWindowMs: positive(options.rateWindowMs, 'rateWindowMs', 1000),
    maxBufferedBytes: positive(options.maxBufferedBytes, 'maxBufferedBytes', 4 * 1024 * 1024),
    stallTimeoutMs: positive(options.stallTimeoutMs, 'stallTimeoutMs', 10_000),
    framesPerTurn: count(options.framesPerTurn, 'framesPerTurn', 4),
  }
}

function positive(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value === 'number' && value > 0 && !Number.isNaN(value)) return value
  throw new TypeError(`relay limit ${name} must be a number greater than 0, not ${String(value)}`)
}

function count(value: unknown, name: string, fallback: number): number {
  const number = positive(value, name, fallback)
  if (Number.isSafeInteger(number)) return number
  throw new TypeError(`relay limit ${name} must be a whole number, not ${String(value)}`)
}
