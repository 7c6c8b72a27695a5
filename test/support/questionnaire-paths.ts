/**
 * Paths through `questionnaireMachine` for model-based tests of the UIs.
 *
 * Given a request, {@link questionnairePaths} walks the machine with
 * `xstate/graph` (`getShortestPaths` or `getSimplePaths`) using explicit event
 * cases derived from the questions, and returns each path as plain data: the
 * events to replay through a UI and, after every event, what the UI must show
 * (state, question on screen, drafts, whether submit is possible) and, at the
 * end, the questionnaire's output. Everything is JSON-serialisable, so a pty
 * test can type it and a browser test can click it.
 *
 * @example
 * ```ts
 * for (const path of questionnairePaths(deploymentQuestions, { eventTypes: ['option.chosen', 'batch.submitted'] })) {
 *   it(path.description, async () => {
 *     for (const step of path.steps) { await ui.perform(step.event); await ui.expect(step.expected) }
 *   })
 * }
 * ```
 */
import { getShortestPaths, getSimplePaths } from 'xstate/graph'
import type { SnapshotFrom } from 'xstate'
import type { AskUserQuestionItem } from '../../src/protocol/index.js'
import {
  canSubmit,
  currentQuestion,
  isQuestionAnswered,
  questionnaireMachine,
} from '../../src/machines/questionnaire.machine.js'
import type {
  QuestionDraft,
  QuestionnaireEvent,
  QuestionnaireOutput,
} from '../../src/machines/questionnaire.machine.js'

/** A snapshot of the questionnaire machine. */
export type QuestionnaireSnapshot = SnapshotFrom<typeof questionnaireMachine>

/** The states a UI can show. `opening` is transient and never observed. */
export type QuestionnaireStateName = 'answering' | 'planReview' | 'submitted' | 'cancelled'

/** What a UI must show after a step. */
export interface QuestionnaireExpectation {
  state: QuestionnaireStateName
  /** Position of the question on screen. */
  index: number
  /** Id of the question on screen. */
  questionId: string
  /** Every question's draft, keyed by id. */
  drafts: Record<string, QuestionDraft>
  /** Whether `batch.submitted` would be taken now. */
  canSubmit: boolean
  /** Present once the flow ended (`submitted` or `cancelled`). */
  output?: QuestionnaireOutput
}

/** One event to perform through the UI, and what must show after it. */
export interface QuestionnaireStep {
  event: QuestionnaireEvent
  expected: QuestionnaireExpectation
}

/** A replayable path: the starting screen, the steps, and the screen it ends on. */
export interface QuestionnairePath {
  /** The events in order, readable as a test name. */
  description: string
  initial: QuestionnaireExpectation
  steps: QuestionnaireStep[]
  final: QuestionnaireExpectation
}

/**
 * How finely states are told apart, which decides how many paths there are:
 * - `progress` (default): state, question on screen, and which questions are
 *   settled — few paths, meant for slow UIs (a pty, a browser);
 * - `answer-kind`: also how each is answered (choice, text, both,
 *   skipped) and the output's status, without telling labels apart;
 * - `exact`: the whole context (explodes beyond a couple of small questions).
 */
export type QuestionnaireAbstraction = 'progress' | 'answer-kind' | 'exact'

/** Options of {@link questionnairePaths}. */
export interface QuestionnairePathOptions {
  /** @default 'shortest' (`simple` is for requests of one or two small questions) */
  algorithm?: 'shortest' | 'simple'
  /** @default 'progress' */
  abstraction?: QuestionnaireAbstraction
  /** The event types the UI under test can perform; others are never generated. @default all */
  eventTypes?: readonly QuestionnaireEvent['type'][]
  /** Text used for `custom.typed`. @default 'typed by the test' */
  customText?: string
  /** Also generate `custom.typed` with blank text (clearing the field). @default true */
  clearCustom?: boolean
  /** Feedback used for `plan.refused` (a case without feedback is generated too). @default 'needs changes' */
  feedback?: string
  /** Only the first N labels of each question become event cases. @default Infinity */
  optionsPerQuestion?: number
  /** Walk the generic flow even when the request qualifies for plan review. @default false */
  genericFlow?: boolean
}

/** The machine whose paths are generated: the generic flow can be forced for a plan review. */
export function questionnaireLogic(genericFlow = false): typeof questionnaireMachine {
  return genericFlow
    ? questionnaireMachine.provide({ guards: { qualifiesForPlanReview: () => false } })
    : questionnaireMachine
}

/** The explicit event cases for a snapshot, derived from its current question. */
export function questionnaireEventCases(
  snapshot: QuestionnaireSnapshot,
  options: QuestionnairePathOptions = {},
): QuestionnaireEvent[] {
  const { context } = snapshot
  const question = currentQuestion(context)
  const labels = (question.options ?? [])
    .slice(0, options.optionsPerQuestion ?? Infinity)
    .map(({ label }) => label)
  const events: QuestionnaireEvent[] = [
    ...labels.map((label): QuestionnaireEvent =>
      question.multiSelect === true
        ? { type: 'option.toggled', label }
        : { type: 'option.chosen', label },
    ),
    { type: 'custom.typed', text: options.customText ?? 'typed by the test' },
    ...(options.clearCustom === false ? [] : [{ type: 'custom.typed', text: '' } as const]),
    { type: 'question.skipped' },
    { type: 'question.back' },
    { type: 'question.next' },
    ...context.questions.map((_, index): QuestionnaireEvent => ({
      type: 'question.selected',
      index,
    })),
    { type: 'batch.submitted' },
    { type: 'batch.cancelled' },
    { type: 'plan.approved' },
    { type: 'plan.refused' },
    { type: 'plan.refused', feedback: options.feedback ?? 'needs changes' },
    { type: 'plan.discussed' },
  ]
  const allowed = options.eventTypes
  return allowed === undefined ? events : events.filter((event) => allowed.includes(event.type))
}

function answerKind(draft: QuestionDraft | undefined): string {
  if (draft === undefined) return '-'
  if (draft.skipped) return 'skipped'
  const chosen = draft.selected.length > 0
  const typed = draft.custom !== undefined
  return chosen && typed ? 'both' : chosen ? 'chosen' : typed ? 'typed' : '-'
}

/**
 * The vertex key of a snapshot under an abstraction. An ended flow is also
 * told apart by the event that ended it and by the kind of each answer, so
 * approve, refuse, skip, dismiss and discuss each get their own path.
 */
export function serializeQuestionnaireSnapshot(
  snapshot: QuestionnaireSnapshot,
  abstraction: QuestionnaireAbstraction = 'progress',
  event?: QuestionnaireEvent,
): string {
  const { context } = snapshot
  if (abstraction === 'exact') {
    return JSON.stringify([snapshot.value, context.index, context.drafts, snapshot.output])
  }
  const output = snapshot.output
  if (output !== undefined) {
    const ending =
      output.status === 'cancelled'
        ? output.reason
        : output.answer.answers.map((item) =>
            item.custom === undefined
              ? item.selected.length > 0
                ? 'chosen'
                : 'skipped'
              : item.selected.length > 0
                ? 'both'
                : 'typed',
          )
    const via =
      event?.type === 'plan.refused' && event.feedback !== undefined
        ? 'plan.refused+feedback'
        : event?.type
    return JSON.stringify([snapshot.value, ending, via])
  }
  const settled = context.questions.map(({ id }) =>
    abstraction === 'progress'
      ? isQuestionAnswered(context, id)
        ? 'settled'
        : '-'
      : answerKind(context.drafts[id]),
  )
  return JSON.stringify([snapshot.value, context.index, settled])
}

/** What a UI must show for a snapshot. */
export function expectationOf(snapshot: QuestionnaireSnapshot): QuestionnaireExpectation {
  const { context } = snapshot
  const expectation: QuestionnaireExpectation = {
    state: snapshot.value as QuestionnaireStateName,
    index: context.index,
    questionId: currentQuestion(context).id,
    drafts: context.drafts,
    canSubmit: snapshot.status === 'active' && snapshot.value === 'answering' && canSubmit(context),
  }
  if (snapshot.output !== undefined) expectation.output = snapshot.output
  return expectation
}

function describeEvent(event: QuestionnaireEvent): string {
  switch (event.type) {
    case 'option.chosen':
    case 'option.toggled':
      return `${event.type}(${event.label})`
    case 'custom.typed':
      return `${event.type}(${JSON.stringify(event.text)})`
    case 'question.selected':
      return `${event.type}(${event.index})`
    case 'plan.refused':
      return event.feedback === undefined ? event.type : `${event.type}(${event.feedback})`
    default:
      return event.type
  }
}

type FoundPath = ReturnType<typeof getShortestPaths<typeof questionnaireMachine>>[number]

/** The abstract key of every state along a path (with the event that led there). */
function abstractKeys(path: FoundPath, abstraction: QuestionnaireAbstraction): string[] {
  return path.steps.map((step, index) =>
    serializeQuestionnaireSnapshot(step.state, abstraction, index === 0 ? undefined : step.event),
  )
}

/**
 * Replayable paths through the questionnaire for `questions`: with `shortest`,
 * one shortest path to every abstract state; with `simple`, every simple path,
 * keeping one per sequence of abstract states.
 *
 * The walk itself tells states apart exactly (the whole context), and the
 * abstraction only picks which paths to keep: walking abstract states directly
 * would splice paths from different concrete states, whose steps would not
 * replay to what they claim. So every expectation is what a replay of the
 * events really produces. `simple` grows exponentially: keep it for requests
 * of one small question.
 */
export function questionnairePaths(
  questions: AskUserQuestionItem[],
  options: QuestionnairePathOptions = {},
): QuestionnairePath[] {
  const logic = questionnaireLogic(options.genericFlow)
  const abstraction = options.abstraction ?? 'progress'
  const traversal = {
    input: { questions },
    events: (snapshot: QuestionnaireSnapshot) => questionnaireEventCases(snapshot, options),
    // An ended flow takes no events; walking on from it would only relabel it.
    stopWhen: (snapshot: QuestionnaireSnapshot) => snapshot.status === 'done',
    filterEvents: (_snapshot: QuestionnaireSnapshot, event: QuestionnaireEvent) =>
      options.eventTypes === undefined || options.eventTypes.includes(event.type),
    serializeState: (snapshot: QuestionnaireSnapshot) =>
      serializeQuestionnaireSnapshot(snapshot, 'exact'),
  }
  const found =
    options.algorithm === 'simple'
      ? getSimplePaths(logic, traversal)
      : getShortestPaths(logic, traversal)
  const kept = new Map<string, FoundPath>()
  for (const path of [...found].sort((a, b) => a.steps.length - b.steps.length)) {
    const keys = abstractKeys(path, abstraction)
    const key = options.algorithm === 'simple' ? keys.join('|') : (keys.at(-1) ?? '')
    if (!kept.has(key)) kept.set(key, path)
  }
  return [...kept.values()].map((path) => {
    // xstate/graph reports the initial snapshot as a first step, then (event, state it led to).
    const [first, ...rest] = path.steps
    const initial = expectationOf(first?.state ?? path.state)
    const steps = rest.map((step) => ({ event: step.event, expected: expectationOf(step.state) }))
    return {
      description:
        steps.length === 0
          ? '(initial)'
          : steps.map(({ event }) => describeEvent(event)).join(' → '),
      initial,
      steps,
      final: expectationOf(path.state),
    }
  })
}

/** Which machine states and transitions a set of paths exercises. */
export interface QuestionnaireCoverage {
  states: { covered: string[]; total: string[] }
  /** Transitions as `state:event` (eventless ones as `state:always→target`). */
  transitions: { covered: string[]; total: string[] }
}

/** Every transition of the machine definition, as `state:event` keys. */
export function questionnaireTransitions(): string[] {
  const keys: string[] = []
  for (const [name, node] of Object.entries(questionnaireMachine.root.states)) {
    for (const type of node.transitions.keys()) keys.push(`${name}:${type}`)
    for (const transition of node.always ?? []) {
      keys.push(`${name}:always→${transition.target?.[0]?.key ?? name}`)
    }
  }
  return keys.sort()
}

/**
 * The states and the transitions the paths take. A step counts as taking a
 * transition only when it changes the snapshot (an ignored event takes none).
 */
export function questionnaireCoverage(paths: readonly QuestionnairePath[]): QuestionnaireCoverage {
  const states = new Set<string>()
  const transitions = new Set<string>()
  for (const path of paths) {
    states.add(path.initial.state)
    transitions.add(`opening:always→${path.initial.state}`)
    let before = path.initial
    for (const step of path.steps) {
      states.add(step.expected.state)
      if (JSON.stringify(step.expected) !== JSON.stringify(before)) {
        transitions.add(`${before.state}:${step.event.type}`)
      }
      before = step.expected
    }
  }
  const allStates = Object.keys(questionnaireMachine.root.states).filter(
    (name) => name !== 'opening',
  )
  return {
    states: { covered: [...states].sort(), total: allStates.sort() },
    transitions: { covered: [...transitions].sort(), total: questionnaireTransitions() },
  }
}
