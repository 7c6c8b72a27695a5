/**
 * Runs `body` with the process's uncaught exceptions collected into the array
 * it is given, for a test that expects one (a throwing store watcher must
 * reach the process). The runner's own handlers, which would fail the test,
 * are put back afterwards, whatever `body` does.
 */
export async function collectingUncaught(
  body: (uncaught: unknown[]) => Promise<void>,
): Promise<void> {
  const uncaught: unknown[] = []
  const onUncaught = (error: unknown) => uncaught.push(error)
  const runners = process.listeners('uncaughtException')
  process.removeAllListeners('uncaughtException')
  process.on('uncaughtException', onUncaught)
  try {
    await body(uncaught)
  } finally {
    process.off('uncaughtException', onUncaught)
    for (const listener of runners) process.on('uncaughtException', listener)
  }
}
