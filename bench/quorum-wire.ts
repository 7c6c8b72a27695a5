/**
 * What the quorum benchmark (quorum.bench.ts) and its console processes
 * (quorum-voter.ts) say to each other. Not a benchmark itself.
 */
import type { Responder } from '../src/protocol/index.js'

/** What the parent sends: answer the ask shown with this id. */
export interface VoterCommand {
  askId: string
  label: string
  by: Responder
}

/** What a voter tells the parent. */
export type VoterReport =
  | { type: 'ready' }
  | { type: 'shown'; askId: string }
  /** The answer was handed to the seam at `at` (epoch milliseconds, sub-millisecond). */
  | { type: 'answered'; askId: string; at: number }
  | { type: 'told'; askId: string; status: string }

/** Epoch milliseconds with the sub-millisecond part, comparable across processes on one machine. */
export const preciseNow = () => performance.timeOrigin + performance.now()
