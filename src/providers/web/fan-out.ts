/** Frames waiting for one recipient, oldest first. */
export interface Outbox {
  frames: string[]
  bytes: number
}

/** Options of {@link createFanOut}. */
export interface FanOutOptions<TRecipient> {
  /** Frames written per turn of the event loop before the rest waits for the next turn. */
  framesPerTurn: number
  outboxOf(recipient: TRecipient): Outbox
  /** Writes one frame; `false` when the recipient is gone (its outbox is then dropped). */
  write(recipient: TRecipient, data: string): boolean
}

/** Queues frames per recipient and writes them without blocking the event loop for a whole fan-out. */
export interface FanOut<TRecipient> {
  /**
   * Queues a frame for a recipient and returns the bytes now queued for it.
   * Recipients are served in the order they got something to receive, so a
   * broadcast that enqueues the most recently active recipient first serves it first.
   */
  enqueue(recipient: TRecipient, data: string): number
  /**
   * Writes queued frames now, up to `budget`; whatever is left goes out on
   * later turns, so incoming frames (an answer!) are read between chunks of
   * a large fan-out.
   */
  flush(budget?: number): void
  /** Forgets a recipient's queued frames. */
  drop(recipient: TRecipient): void
}

/**
 * Per-recipient FIFO outboxes drained in chunks. One socket write costs
 * 10–30 µs; a fan-out to 1,000 clients done in one go would block the host's
 * event loop for tens of milliseconds per frame. Each recipient's frames keep
 * their order, and each turn costs only the frames it writes.
 */
export function createFanOut<TRecipient>(options: FanOutOptions<TRecipient>): FanOut<TRecipient> {
  const ready = new Set<TRecipient>()
  let scheduled = false

  const drop = (recipient: TRecipient): void => {
    ready.delete(recipient)
    const outbox = options.outboxOf(recipient)
    outbox.frames.length = 0
    outbox.bytes = 0
  }

  const flush = (budget = options.framesPerTurn): void => {
    let left = budget
    for (const recipient of ready) {
      if (left <= 0) break
      const outbox = options.outboxOf(recipient)
      while (outbox.frames.length > 0 && left > 0) {
        const data = outbox.frames.shift() as string
        outbox.bytes -= data.length
        left--
        if (!options.write(recipient, data)) {
          drop(recipient)
          break
        }
      }
      if (outbox.frames.length === 0) ready.delete(recipient)
    }
    if (ready.size > 0 && !scheduled) {
      scheduled = true
      setImmediate(() => {
        scheduled = false
        flush()
      })
    }
  }

  return {
    enqueue(recipient, data) {
      const outbox = options.outboxOf(recipient)
      outbox.frames.push(data)
      outbox.bytes += data.length
      ready.add(recipient)
      return outbox.bytes
    },
    flush,
    drop,
  }
}
