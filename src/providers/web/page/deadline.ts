/** The remaining time of an ask with a deadline, as the page shows it. */

/** How a countdown reads: the text, and whether time is nearly up. */
export interface Remaining {
  text: string
  /** Under a tenth of the time the page has seen, or under a minute. */
  warning: boolean
  expired: boolean
}

/**
 * The remaining time at `now` of an ask due at `deadline` that the page
 * first saw at `since`, e.g. `4:05 left`, `1 h 20 min left`, `Time is up`.
 */
export function remainingTime(deadline: number, since: number, now: number): Remaining {
  const left = deadline - now
  if (left <= 0) return { text: 'Time is up', warning: true, expired: true }
  const seconds = Math.ceil(left / 1000)
  const hours = Math.floor(seconds / 3600)
  const minutes = Math.floor((seconds % 3600) / 60)
  const text =
    hours > 0
      ? `${hours} h ${String(minutes).padStart(2, '0')} min left`
      : `${minutes}:${String(seconds % 60).padStart(2, '0')} left`
  const span = Math.max(deadline - since, 1)
  return { text, warning: left <= span / 10 || left <= 60_000, expired: false }
}
