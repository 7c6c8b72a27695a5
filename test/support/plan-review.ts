import { createHash } from 'node:crypto'

/** A plan-review question as loose data, with `overrides` for the field a test breaks. */
export function planReview(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'plan',
    question: 'Proceed with this plan?',
    detail: '1. migrate\n2. deploy',
    options: [{ label: 'Approve' }, { label: 'Refuse' }],
    intent: { kind: 'plan-review', approve: 'Approve' },
    ...overrides,
  }
}

/** A plan that two people approve on a console (DESIGN §12), and the approval each gives. */
export const planToApprove = [
  {
    id: 'plan',
    question: 'Ship it?',
    detail: '1. migrate\n2. deploy',
    options: [{ label: 'Approve' }, { label: 'Revise' }],
    intent: { kind: 'plan-review' as const, approve: 'Approve' },
  },
]
export const approval = { answers: [{ id: 'plan', selected: ['Approve'] }] }

/** A console's `users`, one per id with its token, as `--users` keeps them: the token's SHA-256 only. */
export function consoleUsers(tokens: Record<string, string>) {
  return Object.entries(tokens).map(([id, token]) => ({
    id,
    tokenSha256: createHash('sha256').update(token).digest('hex'),
  }))
}
