/** Frames waiting for one recipient, oldest first, and how its reading is going. */
export interface Outbox {
  frames: string[]
  /** UTF-16 code units queued in `frames`. */
  bytes: number
  /** Since when the recipient has owed more than the bound without reading anything; `undefined` while it reads. */
  quietSince?: number
  /** The recipient's transport backlog when it was last looked at. */
  lastBacklog?: number
}

/** Options of {@link createFanOut}. */
export interface FanOutOptions<TRecipient> {
  /** Frames written per turn of the event loop before the rest waits for the next turn. */
  framesPerTurn: number
  outboxOf(recipient: TRecipient): Outbox
  /** Writes one frame; `false` when the recipient is gone (its outbox is then dropped). */
  write(recipient: TRecipient, data: string): boolean
  /** Bytes the recipient's transport still holds for the peer (a socket's `bufferedAmount`). */
  backlogOf(recipient: TRecipient): number
  /**
   * The bound: writing to a recipient pauses while its transport holds this
   * many bytes, and resumes as the peer reads them.
   */
  maxBacklogBytes: number
  /** How long a paused recipient may read nothing before it counts as stalled. */
  stallMs: number
  /** A recipient stopped reading: it owed more than the bound and read nothing for `stallMs`. */
  onStalled(recipient: TRecipient): void
  /** How often paused recipients are looked at. @default 10 */
  pollMs?: number
}

/** Queues frames per recipient and writes them as fast as each recipient reads. */
export interface FanOut<TRecipient> {
  /**
   * Queues a frame for a recipient and returns the bytes now queued for it.
   * Recipients are served in the order they got something to receive, so a
   * broadcast that enqueues the most recently active recipient first serves it first.
   */
  enqueue(recipient: TRecipient, data: string): number
  /**
   * Writes queued frames now, up to `budget`, to recipients whose transport
   * is below the bound; whatever is left goes out on later turns, so incoming
   * frames (an answer!) are read between chunks of a large fan-out. With
   * `force`, the bound is ignored (a relay being disposed says its last words).
   */
  flush(budget?: number, force?: boolean): void
  /** Forgets a recipient's queued frames. */
  drop(recipient: TRecipient): void
}

/**
 * Per-recipient FIFO outboxes drained in chunks and paced by each reader.
 * One socket write costs 10–30 µs; a fan-out to 1,000 clients done in one go
 * would block the host's event loop for tens of milliseconds per frame. Each
 * recipient's frames keep their order, and each turn costs only the frames it
 * writes. A recipient whose transport already holds `maxBacklogBytes` is
 * paused — nothing more is written to it until the peer reads — so what a
 * (re)connecting client is owed, however large, reaches it at the pace it
 * reads, and the host holds at most about one bound plus one frame per
 * client. A recipient is given up on only when it stops reading: paused, and
 * its backlog unchanged for `stallMs` (DESIGN §7).
 */
export function createFanOut<TRecipient>(options: FanOutOptions<TRecipient>): FanOut<TRecipient> {
  const ready = new Set<TRecipient>()
  const paused = new Set<TRecipient>()
  const pollMs = options.pollMs ?? 10
  let scheduled = false
  let poller: ReturnType<typeof setTimeout> | undefined

  const drop = (recipient: TRecipient): void => {
    ready.delete(recipient)
    paused.delete(recipient)
    const outbox = options.outboxOf(recipient)
    outbox.frames.length = 0
    outbox.bytes = 0
    delete outbox.quietSince
    delete outbox.lastBacklog
  }

  const isFull = (recipient: TRecipient): boolean =>
    options.backlogOf(recipient) >= options.maxBacklogBytes

  const pause = (recipient: TRecipient): void => {
    ready.delete(recipient)
    paused.add(recipient)
    poller ??= setTimeout(poll, pollMs)
  }

  /** Looks at each paused recipient: one that read resumes, one that read nothing for too long is given up on. */
  const poll = (): void => {
    poller = undefined
    const now = Date.now()
    for (const recipient of [...paused]) {
      const outbox = options.outboxOf(recipient)
      const backlog = options.backlogOf(recipient)
      const read = outbox.lastBacklog === undefined || backlog < outbox.lastBacklog
      outbox.lastBacklog = backlog
      if (backlog < options.maxBacklogBytes) {
        paused.delete(recipient)
        ready.add(recipient)
        delete outbox.quietSince
        delete outbox.lastBacklog
      } else if (read) {
        outbox.quietSince = now
      } else if (now - (outbox.quietSince ?? now) >= options.stallMs) {
        drop(recipient)
        options.onStalled(recipient)
      }
    }
    flush()
    if (paused.size > 0) poller ??= setTimeout(poll, pollMs)
  }

  const flush = (budget = options.framesPerTurn, force = false): void => {
    if (force) {
      for (const recipient of paused) ready.add(recipient)
      paused.clear()
    }
    let left = budget
    for (const recipient of ready) {
      if (left <= 0) break
      const outbox = options.outboxOf(recipient)
      while (outbox.frames.length > 0 && left > 0) {
        if (!force && isFull(recipient)) {
          pause(recipient)
          break
        }
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
    if (paused.size === 0 && poller !== undefined) {
      clearTimeout(poller)
      poller = undefined
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
      if (!paused.has(recipient)) ready.add(recipient)
      return outbox.bytes
    },
    flush,
    drop,
  }
}
