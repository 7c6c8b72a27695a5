/**
 * Words every UI and the tool use for the same fact, so a terminal, a web
 * page and the model read one phrasing.
 */

/**
 * A length of time in words: `45 seconds`, `2 minutes`, `1 hour 30 minutes`;
 * `less than a second` for what would round to `0 seconds` (a short
 * deadline is still a wait, not none).
 */
export function durationInWords(milliseconds: number): string {
  const seconds = Math.max(0, Math.round(milliseconds / 1000))
  if (seconds === 0) return 'less than a second'
  const unit = (count: number, name: string) => `${count} ${name}${count === 1 ? '' : 's'}`
  if (seconds < 60) return unit(seconds, 'second')
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return unit(minutes, 'minute')
  const rest = minutes % 60
  return `${unit(Math.floor(minutes / 60), 'hour')}${rest === 0 ? '' : ` ${unit(rest, 'minute')}`}`
}
