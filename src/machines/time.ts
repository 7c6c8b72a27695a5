/**
 * The longest delay a timer can hold: Node fires a longer one after 1 ms
 * (with a `TimeoutOverflowWarning`), so every delay of every machine is
 * clamped to it. A wait that is longer still (a deadline weeks away) fires
 * early and is re-armed for what is left.
 */
export const MAX_DELAY_MS = 2_147_483_647

/** `ms` as a delay a timer can hold: at least 0, at most {@link MAX_DELAY_MS}. */
export function clampDelay(ms: number): number {
  if (!(ms > 0)) return 0
  return ms > MAX_DELAY_MS ? MAX_DELAY_MS : ms
}

/** The delay until the epoch time `at`, clamped. */
export function delayUntil(at: number): number {
  return clampDelay(at - Date.now())
}
