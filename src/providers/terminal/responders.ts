/**
 * Who answers at this terminal (DESIGN §12): the OS user, unless the host
 * names another; which asks they may answer; and the lines that say how an
 * approval counted or why an ask waits for someone else.
 */
import { userInfo } from 'node:os'
import { AskEndReasons, admits, hasApproved } from '../../vocabulary/index.js'
import type {
  ApprovalCount,
  ProviderRequest,
  ProviderSettlement,
  Responder,
} from '../../vocabulary/index.js'
import type { TerminalStyle } from './style.js'
import { sanitize, truncate } from './text.js'

/** The person at this terminal: the OS user, by name (or uid where the system has no name for it). */
export function osResponder(): Responder {
  try {
    const { username } = userInfo()
    if (username !== '') return { id: username, via: 'terminal' }
  } catch {
    // No passwd entry for this uid (a container): the uid still names the user.
  }
  return { id: `uid:${process.getuid?.() ?? 'unknown'}`, via: 'terminal' }
}

const nameOf = (responder: Responder) => sanitize(responder.name ?? responder.id)

/** "1 of 2 approvals: alice", or "0 of 2 approvals". */
export function approvalsText(count: ApprovalCount): string {
  const names = count.given.map(nameOf)
  const tally = `${count.given.length} of ${count.required} approvals`
  return names.length === 0 ? tally : `${tally}: ${names.join(', ')}`
}

/** What the first question is called, short. */
function askTitle(request: ProviderRequest): string {
  const first = request.questions[0]
  const title = sanitize(first?.header ?? first?.question ?? request.askId)
  return truncate(title, 40)
}

/**
 * The line shown instead of a prompt when `responder` may not answer this ask
 * (not among its `answerers`) or has approved it already; `undefined` when it
 * is theirs to answer.
 */
export function standingLine(
  request: ProviderRequest,
  responder: Responder,
  style: TerminalStyle,
  width: number,
): string | undefined {
  const title = `“${askTitle(request)}”`
  if (!admits(request.answerers, responder)) {
    const who = (request.answerers ?? []).map((entry) => sanitize(entry)).join(', ')
    const line = `${title} waits for ${who} to answer; ${nameOf(responder)} may not answer it here`
    return ` ${style.dim(`○ ${truncate(line, width - 4)}`)}`
  }
  const count = request.approvals
  if (count !== undefined && hasApproved(count.given, responder)) {
    const line = `${title}: your approval is counted (${approvalsText(count)}); waiting for the others`
    return ` ${style.dim(`○ ${truncate(line, width - 4)}`)}`
  }
  return undefined
}

/** The line the seam's verdict on an answer given here leaves, when there is something to say. */
export function verdictLine(verdict: ProviderSettlement, style: TerminalStyle): string | undefined {
  if (verdict.status === 'counted') {
    const { given, required } = verdict.approvals
    return ` ${style.success('✔')} your approval is counted (${given.length} of ${required})`
  }
  if (verdict.status !== 'refused') return undefined
  const reason = verdict.error.details?.reason
  if (reason === AskEndReasons.ALREADY_VOTED) {
    return ` ${style.danger('✖')} you approved this already: your answer was not counted again`
  }
  if (reason === AskEndReasons.FORBIDDEN) {
    return ` ${style.danger('✖')} you may not answer this ask: your answer was refused`
  }
  return undefined
}
