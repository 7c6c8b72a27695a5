import { createActor } from 'xstate'
import type { ProgressNotification } from '@modelcontextprotocol/sdk/types.js'
import { KEEP_ALIVE_MS, keepAliveMachine } from '../../machines/index.js'

/** Options of {@link keepAlive}. */
export interface KeepAliveOptions {
  /**
   * The longest time between two progress notifications, in milliseconds;
   * keep it under the client's request timeout. `0` sends none.
   * @default 10000
   */
  keepAliveMs?: number
}

/**
 * The part of an MCP SDK tool handler's `extra` argument that {@link keepAlive}
 * reads: the request's `_meta.progressToken`, its `sendNotification`, and its
 * `signal`. The `extra` of an `McpServer` tool callback or of a low-level
 * `Server` request handler fits as it is.
 */
export interface KeepAliveExtra {
  /** Aborts when the client cancels the call: the keepalive stops at once. */
  readonly signal: AbortSignal
  /** The request's `_meta`; without a `progressToken` the client hears no progress. */
  readonly _meta?: { readonly progressToken?: string | number | undefined } | undefined
  /** Sends a notification about this request. */
  readonly sendNotification: (notification: ProgressNotification) => Promise<void>
}

function intervalOf(keepAliveMs: number | undefined): number {
  if (keepAliveMs === undefined) return KEEP_ALIVE_MS
  if (typeof keepAliveMs !== 'number' || !Number.isFinite(keepAliveMs) || keepAliveMs < 0) {
    throw new TypeError(
      `keepAlive: keepAliveMs must be a number of milliseconds, 0 or more (0 sends no progress), not ${String(keepAliveMs)}`,
    )
  }
  return keepAliveMs
}

/** What a progress notification says, for a person reading the client's log. */
function waitingFor(elapsedMs: number): string {
  return `waiting for the human (${Math.round(elapsedMs / 1000)} s)`
}

/**
 * Runs `work` (a tool call's wait on a human: one `seam.ask`, or the whole
 * handler) and, while it runs, sends `notifications/progress` for the call at
 * least every `keepAliveMs`, so a client whose request timeout resets on
 * progress keeps waiting. Each notification's `progress` is one higher than
 * the last, with a `message` such as "waiting for the human (40 s)". Only a
 * call whose request carried `_meta.progressToken` hears anything (a client
 * asks for progress by giving one). The notifications stop the moment `work`
 * settles or the call's `signal` aborts, so none follows the tool's result.
 * Resolves or rejects as `work` does.
 *
 * Throws `TypeError` when `keepAliveMs` is negative or not a finite number.
 *
 * @example
 * ```ts
 * import { keepAlive } from 'askseam/mcp'
 *
 * server.registerTool('deploy', { description: 'Deploys after asking where.' }, (extra) =>
 *   keepAlive(extra, async () => {
 *     const { answers } = await seam.ask({ questions, signal: extra.signal })
 *     return { content: [{ type: 'text', text: `Deploying to ${answers[0]?.selected[0]}` }] }
 *   }),
 * )
 * ```
 */
export async function keepAlive<TResult>(
  extra: KeepAliveExtra,
  work: () => TResult | PromiseLike<TResult>,
  options: KeepAliveOptions = {},
): Promise<TResult> {
  const intervalMs = intervalOf(options.keepAliveMs)
  const progressToken = extra._meta?.progressToken
  const actor = createActor(keepAliveMachine, { input: { intervalMs, progressToken } })
  actor.on('keepalive.tick', ({ progress, elapsedMs }) => {
    // The machine ticks only with a token; the check is for the type.
    if (progressToken === undefined) return
    // A send that fails means the connection is gone, and the call with it: nobody to tell.
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress, message: waitingFor(elapsedMs) },
      })
      .catch(() => undefined)
  })
  const end = () => {
    if (actor.getSnapshot().status === 'active') actor.send({ type: 'wait.ended' })
  }
  actor.start()
  if (extra.signal.aborted) end()
  else extra.signal.addEventListener('abort', end, { once: true })
  try {
    return await work()
  } finally {
    extra.signal.removeEventListener('abort', end)
    end()
  }
}
