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
