import { fromTransition } from 'xstate'
import { TestModel } from 'xstate/graph'
import type { AskOutcome } from '../../src/vocabulary/index.js'
import {
  DEADLINE_MS,
  GRACE_MS,
  abortedElsewhere,
  WAIT_MS,
  answerName,
  answeredElsewhereIn,
  badReply,
  cancelledElsewhere,
  goodAnswer,
  policyAnswers,
  providerFailure,
  replay,
  replayAll,
  retryBound,
  uiCancel,
} from './ask-model.js'
import type { ModelState, ModelStep, Scenario } from './ask-model.js'

/*
 * The paths of the ask model (ask-model.ts): the steps it may take from each
 * state, how its states and steps are told apart, and the paths chosen to run
 * against the seam.
 */

/** The steps the model takes from `state`: what the path may do next. */
export function stepsFrom(scenario: Scenario, state: ModelState): ModelStep[] {
  const { ask, presentation } = state
  if (ask.status !== 'active') return []
  const steps: ModelStep[] = []
  const committing =
    ask.matches({ committing: 'writing' }) || ask.matches({ committing: 'lastWrite' })
  const admitting = ask.matches('admitting')
  const awaitingFleet = ask.matches('awaitingFleet')
  const fits = (delay: number) => !scenario.deadline || state.now + delay < DEADLINE_MS
  const storeAnswers = (proposal: AskOutcome): ModelStep[] =>
    state.stored === undefined
      ? [
          { type: 'commit.done', outcome: proposal, won: true },
          { type: 'commit.done', outcome: answeredElsewhereIn(scenario), won: false },
          { type: 'commit.failed' },
        ]
      : [{ type: 'commit.done', outcome: state.stored, won: false }, { type: 'commit.failed' }]

  // Once it left the ask it followed, it asks as the ask it minted: the store gave the key up.
  const left = state.taken.includes('ask.pending.following ask.settled')
  if (admitting) {
    steps.push(
      { type: 'admission.done', existing: scenario.follows === true && !left },
      { type: 'admission.failed' },
    )
    // Landed, its reply lost: a row of its own (a held key's admission writes none).
    if (scenario.follows !== true || left) steps.push({ type: 'admission.lost' })
  }
  if (awaitingFleet) {
    steps.push(
      { type: 'providers.elsewhere', active: false },
      { type: 'providers.elsewhere', active: true },
      { type: 'provider.available' },
    )
  }
  if (committing) {
    steps.push(
      ...(state.unheld
        ? [{ type: 'commit.unheld' } as const, { type: 'commit.failed' } as const]
        : storeAnswers(ask.context.proposal!.outcome)),
    )
    // The ask's own ending lands and its reply is lost.
    if (!state.unheld && state.stored === undefined) steps.push({ type: 'commit.lost' })
  }
  if (presentation?.matches('counting')) steps.push({ type: 'votes.read' })
  if (presentation?.matches('presenting')) {
    const answers = scenario.policy === true ? Object.values(policyAnswers) : [goodAnswer, badReply]
    steps.push(
      ...answers.map((answer): ModelStep => ({ type: 'provider.answered', answer })),
      { type: 'provider.failed', error: uiCancel },
      { type: 'provider.failed', error: providerFailure },
    )
  }
  if (presentation?.matches({ committing: 'writing' })) {
    const { context } = presentation
    if (!context.voting) steps.push(...storeAnswers(context.proposal!))
    if (!context.voting && state.stored === undefined) steps.push({ type: 'commit.lost' })
    else if (state.stored !== undefined) steps.push(...storeAnswers(context.proposal!))
    // The store counts each responder's approval once; the second settles the ask (DESIGN §12).
    else if (context.given.some((each) => each.id === context.responder!.id)) {
      steps.push({ type: 'vote.already' }, { type: 'commit.failed' })
    } else if (context.given.length + 1 < context.policy!.approvals!) {
      steps.push(
        { type: 'vote.counted' },
        { type: 'commit.done', outcome: answeredElsewhereIn(scenario), won: false },
        { type: 'commit.failed' },
      )
    } else steps.push(...storeAnswers(context.proposal!))
  }
  if (presentation?.matches('pausing') && fits(retryBound(presentation.context.refusals))) {
    steps.push({ type: 'pause.elapsed' })
  }
  if (
    presentation?.matches({ committing: 'waiting' }) &&
    fits(retryBound(presentation.context.attempts))
  ) {
    steps.push({ type: 'retry.elapsed' })
  }
  // The ask's own ending, tried again after a failure that may pass.
  if (ask.matches({ committing: 'waiting' })) steps.push({ type: 'retry.elapsed' })
  if (!state.aborted) steps.push({ type: 'ask.aborted' })
  if (!state.closed) steps.push({ type: 'seam.closed' })
  const pending = ask.matches('pending')
  if ((pending || admitting) && !state.closed && scenario.follows !== true) {
    steps.push(
      ask.context.providerHere ? { type: 'provider.disposed' } : { type: 'provider.available' },
    )
    if (scenario.elsewhere) {
      steps.push({ type: 'providers.elsewhere', active: !ask.context.providerElsewhere })
    }
  }
  // A closed seam no longer follows its store: it hears no settlement.
  if (
    (pending || ask.matches({ committing: 'waiting' })) &&
    state.stored === undefined &&
    !state.unheld &&
    !state.closed
  ) {
    steps.push({
      type: 'ask.settled',
      outcome: scenario.deadline ? answeredElsewhereIn(scenario) : cancelledElsewhere,
    })
    // The other seam's caller gave up on the ask this one follows.
    if (ask.matches({ pending: 'following' })) {
      steps.push({ type: 'ask.settled', outcome: abortedElsewhere })
    }
  }
  if (ask.matches({ pending: { waitingForProvider: 'first' } }) && fits(WAIT_MS)) {
    steps.push({ type: 'wait.elapsed' })
  }
  if (ask.matches({ pending: { waitingForProvider: 'handOver' } }) && fits(GRACE_MS)) {
    steps.push({ type: 'grace.elapsed' })
  }
  const timerFirst =
    ask.matches({ pending: { waitingForProvider: 'first' } }) ||
    ask.matches({ pending: { waitingForProvider: 'handOver' } }) ||
    presentation?.matches({ committing: 'waiting' }) === true ||
    presentation?.matches('pausing') === true ||
    ask.matches({ committing: 'waiting' })
  if (
    scenario.deadline &&
    !state.deadlinePassed &&
    (pending || ask.matches('committing')) &&
    !timerFirst
  ) {
    steps.push({ type: 'ask.deadline' })
  }
  return steps
}

const outcomeKey = (outcome: AskOutcome | undefined) =>
  outcome === undefined
    ? null
    : outcome.status === 'answered'
      ? 'answered'
      : [outcome.error.code, outcome.error.details?.reason]

export function serializeState(state: ModelState): string {
  const { ask, presentation } = state
  return JSON.stringify([
    ask.value,
    ask.context.providerHere,
    ask.context.providerElsewhere,
    ask.context.proposal === undefined
      ? null
      : [outcomeKey(ask.context.proposal.outcome), ask.context.proposal.commit],
    ask.output === undefined
      ? null
      : [ask.output.status, ask.output.status === 'rejected' ? ask.output.error.code : ''],
    presentation?.value ?? null,
    outcomeKey(presentation?.context.proposal),
    outcomeKey(presentation?.context.outcome),
    presentation?.context.yielding ?? null,
    presentation?.context.given.map((each) => each.id) ?? null,
    outcomeKey(state.stored),
    state.votes,
    state.aborted,
    state.closed,
    state.deadlinePassed,
    state.unheld,
  ])
}

export const serializeStep = (step: ModelStep): string =>
  JSON.stringify([
    step.type,
    'outcome' in step ? outcomeKey(step.outcome) : null,
    'won' in step ? step.won : null,
    'active' in step ? step.active : null,
    'existing' in step ? step.existing : null,
    'error' in step ? step.error.code : null,
    'answer' in step ? answerName(step.answer) : null,
  ])

/** One generated path: the model state after each of its steps, the first before any. */
export type ModelPath = ModelState[]

/** The story of a commit that fails, then succeeds: some path must tell it (DESIGN §6). */
const RETRIED_THEN_ACCEPTED = 'a presentation’s commit fails, is retried, and is accepted'

/** Whether the path to `state` has a presentation whose commit failed, was retried and was accepted. */
export function isRetriedThenAccepted(state: ModelState): boolean {
  const steps = state.steps.map((step) => step.type)
  const retried = steps.indexOf('retry.elapsed')
  return (
    retried > 0 &&
    steps.lastIndexOf('commit.failed', retried) !== -1 &&
    state.presentations.some((record) => record.told?.status === 'accepted')
  )
}

/** The story of a UI that comes back after an approval was counted: some path must tell it (DESIGN §12). */
const REOPENED_ON_COUNT = 'a presentation opens on an approval the store counted before it'

/** Whether the path to `state` opened a presentation that showed approvals counted before it opened. */
export function isReopenedOnCount(state: ModelState): boolean {
  return state.presentations.some(
    (record, index) =>
      index > 0 && record.by !== state.presentations[index - 1]!.by && record.given.length > 0,
  )
}

const outputKey = (state: ModelState) =>
  state.ask.output === undefined
    ? null
    : state.ask.output.status === 'answered'
      ? 'answered'
      : state.ask.output.error.code
const coarse = (state: ModelState) =>
  JSON.stringify([
    state.ask.value,
    state.presentation?.value ?? null,
    outcomeKey(state.ask.context.proposal?.outcome),
    outputKey(state),
  ])

/**
 * Paths that together take every step of the model in `scenario` (every
 * transition between its states, seen coarsely: both machines' states, the
 * ending proposed, the outcome) and every event transition of both machines
 * the model takes: the paths that run against the seam. The model has
 * hundreds of states per scenario; a path to each would take minutes on a
 * durable store, and would still miss the steps into states reached before.
 *
 * Each step of the model comes with a history that takes it (the path to the
 * state it leaves, then the step); the fewest of those histories that cover
 * everything are chosen greedily, then replayed step by step.
 */
export function pathsOf(scenario: Scenario, durable: boolean): ModelPath[] {
  const logic = fromTransition<ModelState, ModelStep, never, undefined>(
    (state, step) => replay(scenario, durable, [...state.steps, step]),
    () => replay(scenario, durable, []),
  )
  const model = new TestModel(logic, {
    events: (snapshot) => stepsFrom(scenario, snapshot.context),
    serializeState: (snapshot) => serializeState(snapshot.context),
    serializeEvent: serializeStep,
  })
  const candidates: { steps: ModelStep[]; covers: Set<string> }[] = []
  for (const { state, transitions } of Object.values(model.getAdjacencyMap())) {
    if (state.context.steps.length === 0) {
      candidates.push({ steps: [], covers: new Set([`from ${coarse(state.context)}`]) })
    }
    const edges: { event: ModelStep; state: { context: ModelState } }[] = Object.values(transitions)
    for (const { event, state: next } of edges) {
      const covers = new Set<string>(next.context.taken)
      covers.add(`${coarse(state.context)} ${serializeStep(event)} ${coarse(next.context)}`)
      if (isReopenedOnCount(next.context)) covers.add(REOPENED_ON_COUNT)
      candidates.push({ steps: next.context.steps, covers })
      // A retry leads back to a state reached before, so no path to a state goes on from one:
      // the steps after it are added here, among them the commit that succeeds this time.
      if (event.type === 'retry.elapsed') {
        for (const after of stepsFrom(scenario, next.context)) {
          const then = replay(scenario, durable, [...next.context.steps, after])
          const story = new Set<string>(then.taken)
          if (isRetriedThenAccepted(then)) story.add(RETRIED_THEN_ACCEPTED)
          candidates.push({ steps: then.steps, covers: story })
        }
      }
    }
  }
  const wanted = new Set(candidates.flatMap(({ covers }) => [...covers]))
  const done = new Set<string>()
  const chosen: ModelStep[][] = []
  while (done.size < wanted.size) {
    let best = candidates[0]!
    let gain = -1
    for (const candidate of candidates) {
      let fresh = 0
      for (const key of candidate.covers) if (!done.has(key)) fresh++
      // The shorter history wins a tie: less to replay, and easier to read when it fails.
      if (fresh > gain || (fresh === gain && candidate.steps.length < best.steps.length)) {
        best = candidate
        gain = fresh
      }
    }
    for (const key of best.covers) done.add(key)
    chosen.push(best.steps)
  }
  return chosen.map((steps) => replayAll(scenario, durable, steps))
}
