import type { AskUserQuestionItem } from '../vocabulary/index.js'

/**
 * The demo agent's decision points: a small deployment plan that stops
 * halfway to ask three questions, then submits its plan for review. Shared by
 * `askseam demo` and the `askseam mcp` server so both ask the same things.
 */
export const deploymentQuestions: AskUserQuestionItem[] = [
  {
    id: 'region',
    header: 'Target',
    question: 'Which region should the service be deployed to?',
    detail:
      'The database replica already lives in eu-west-1; other regions add about 40 ms per query.',
    options: [
      { label: 'eu-west-1 (Recommended)', description: 'Next to the database replica' },
      { label: 'us-east-1', description: 'Closest to most current users' },
      { label: 'ap-southeast-2', description: 'New market, no existing infrastructure' },
    ],
  },
  {
    id: 'checks',
    header: 'Safety',
    question: 'Which checks must pass before traffic is switched?',
    multiSelect: true,
    options: [
      { label: 'Smoke tests', description: 'Hit the five critical endpoints' },
      { label: 'Database migration dry run', description: 'Apply migrations to a snapshot first' },
      { label: 'Load test', description: '10 minutes at twice the usual peak' },
    ],
  },
  {
    id: 'announce',
    header: 'Release notes',
    question: 'Anything the release announcement should say?',
  },
]

/** One answer as the demo agents read it (the demo reads it back from the tool's JSON). */
interface AnswerRead {
  id?: string
  selected?: readonly string[]
  custom?: string
}

/** The region the demo agent falls back to when the user skips the question. */
const DEFAULT_REGION = 'eu-west-1'

/**
 * The plan the demo agent drafts from the first batch's answers, and the
 * region it names: the typed region, else the chosen one without the
 * "(Recommended)" that marks the suggested option (part of the label, since a
 * label is its own value, but no part of the region's name), else the default.
 */
export function draftPlan(answers: readonly AnswerRead[]): { region: string; plan: string } {
  const answerOf = (id: string) => answers.find((answer) => answer.id === id)
  const region = answerOf('region')
  const checks = answerOf('checks')
  const named = (region?.custom ?? region?.selected?.[0] ?? DEFAULT_REGION).replace(
    /\s*\(Recommended\)$/,
    '',
  )
  const gates = [
    ...(checks?.selected ?? []),
    ...(checks?.custom === undefined ? [] : [checks.custom]),
  ]
  return { region: named, plan: deploymentPlan(named, gates) }
}

/** The plan the demo agent submits for review once it has its answers. */
export function deploymentPlan(region: string, checks: readonly string[]): string {
  const gates = checks.length === 0 ? ['(no gates chosen)'] : checks
  return [
    `# Deploy checkout-service v2.4.0 to ${region}`,
    '',
    '1. Build and sign the container image',
    `2. Run the gates: ${gates.join(', ')}`,
    '3. Shift 10% of traffic, watch error rate for 15 minutes',
    '4. Shift the remaining traffic and keep v2.3.9 warm for one hour',
  ].join('\n')
}

/** The plan-review question that carries the plan; `Approve` is named by label. */
export function planReviewQuestion(plan: string): AskUserQuestionItem {
  return {
    id: 'plan',
    header: 'Plan review',
    question: 'Approve this deployment plan?',
    detail: plan,
    options: [
      { label: 'Approve', description: 'Run the plan as written' },
      { label: 'Revise', description: 'Send it back with changes' },
    ],
    intent: { kind: 'plan-review', approve: 'Approve' },
  }
}
