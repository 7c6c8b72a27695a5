/**
 * What the page reads from the host's frames and writes back: who the page
 * is signed in as, an ask's approvals (DESIGN §12), a response; and what the
 * page says about them.
 */
import type { QuestionnaireSnapshot } from './view-kit.js'
import type { ApprovalsView } from './view-kit.js'

/** The `question/respond` text for a finished questionnaire's output. */
export function respondFrame(
  rpcId: string,
  output: NonNullable<QuestionnaireSnapshot['output']>,
): string {
  return JSON.stringify({
    type: 'question/respond',
    rpcId,
    result:
      output.status === 'submitted'
        ? { ok: true, value: output.answer }
        : { ok: false, error: { code: 'cancelled', reason: output.reason } },
  })
}

/** How a toast tells of an ask another hand ended, by `question/resolved`'s outcome. */
export const outcomeText: Readonly<Record<string, string>> = {
  answered: 'was answered',
  cancelled: 'was dismissed',
  aborted: 'was withdrawn by the agent',
  'timed-out': 'timed out',
}

/** An ask's approvals as a frame carries them: how many are required, the ids of who gave them. */
export interface Approvals {
  required: number
  given: string[]
}

/** A frame's `approvals` (or a receipt's `counted`), when it is `{ required, given: string[] }`. */
export function readApprovals(value: unknown): Approvals | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { required, given } = value as Record<string, unknown>
  if (typeof required !== 'number' || !Array.isArray(given)) return undefined
  return { required, given: given.filter((id): id is string => typeof id === 'string') }
}

/** Approvals as a card shows them: whether the signed-in person (`me`) is among who gave them. */
export function approvalsView(
  approvals: Approvals | undefined,
  me: string | undefined,
): ApprovalsView | undefined {
  if (approvals === undefined) return undefined
  return { ...approvals, mine: me !== undefined && approvals.given.includes(me) }
}

/** The person a `hello` frame names, when it names one. */
export function readUser(value: unknown): { id: string; name?: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { id, name } = value as Record<string, unknown>
  if (typeof id !== 'string') return undefined
  return typeof name === 'string' ? { id, name } : { id }
}

/** What the page says when its approval was kept as a vote. */
export function countedText({ required, given }: Approvals): string {
  return `Your approval was counted: ${given.length} of ${required}; waiting for ${required - given.length} more.`
}

/** What the page says when the host refused its answer, by the receipt's reason. */
export function refusalText(reason: unknown, message: unknown): string {
  if (reason === 'forbidden') return 'You may not answer this question.'
  if (reason === 'already-voted') return 'You have approved this already; it waits for the others.'
  return `The host did not accept the answer${typeof message === 'string' ? `: ${message}` : ''}.`
}
