/*
 * How a long-running command (`askseam console`, `notify`, `mcp --http`)
 * stops: at the first SIGINT or SIGTERM it closes gracefully; a second one
 * while it closes stops the process at once (the store decides every
 * outcome, so nothing is lost).
 */

/**
 * Resolves at the first SIGINT or SIGTERM. It listens from the call on: call
 * it before saying the command runs, so a signal sent on reading that line
 * finds the handler.
 */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
}

/** While a command closes, a second SIGINT or SIGTERM exits at once (130); returns the undo. */
export function exitOnSecondSignal(): () => void {
  const now = () => process.exit(130)
  process.once('SIGINT', now)
  process.once('SIGTERM', now)
  return () => {
    process.off('SIGINT', now)
    process.off('SIGTERM', now)
  }
}
