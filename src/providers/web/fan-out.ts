/** Frames waiting for one recipient, oldest first. */
export interface Outbox {
  frames: string[]
  bytes: number
}

/** Options of {@link createFanOut}. */
export interface FanOutOptions<TRecipient> {
  /** Frames written per turn of the event loop before the rest waits for the next turn. */
  framesPerTurn: number
  /** The recipients, most recently active first: the order frames go out in. */
  order(): Iterable<TRecipient>
  outboxOf(recipient: TRecipient): Outbox
  /** Writes one frame; `false` when the recipient is gone (its outbox is then dropped). */
  write(recipient: TRecipient, data: string): boolean
}

/** Queues frames per recipient and writes them without blocking the event loop for a whole fan-out. */
export interface FanOut<TRecipient> {
  /** Queues a frame for a recipient; returns the bytes now queued for it. */
  enqueue(recipient: TRecipient, data: string): number
  /**
   * Writes queued frames now, most recently active recipients first, up to
   * `budget` frames; whatever is left goes out on later turns, so incoming
   * frames (an answer!) are read between chunks of a large fan-out.
   */
  flush(budget?: number): void
}

/**
 * Per-recipient FIFO outboxes drained in chunks. One socket write costs
 * 10–30 µs; a fan-out to 1,000 clients done in one go would block the host's
 * event loop for tens of milliseconds per frame. Each recipient's frames keep
 * their order; recipients are served most recently active first, so the tab
 * a person is using hears first.
 */
export function createFanOut<TRecipient>(options: FanOutOptions<TRecipient>): FanOut<TRecipient> {
  let scheduled = false

  const flush = (budget = options.framesPerTurn): void => {
    let left = budget
    let waiting = false
    for (const recipient of options.order()) {
      const outbox = options.outboxOf(recipient)
      if (outbox.frames.length === 0) continue
      if (left <= 0) {
        waiting = true
        break
      }
      while (outbox.frames.length > 0 && left > 0) {
        const data = outbox.frames.shift() as string
        outbox.bytes -= data.length
        left--
        if (!options.write(recipient, data)) {
          outbox.frames.length = 0
          outbox.bytes = 0
        }
      }
      if (outbox.frames.length > 0) waiting = true
    }
    if (waiting && !scheduled) {
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
      return outbox.bytes
    },
    flush,
  }
}
