import { assign, setup } from 'xstate'
import { finalStateOutput } from './final-output.js'
import { AskEndReasons, UserQuestionError } from '../vocabulary/index.js'
import type { AskUserQuestionAnswer, AskUserQuestionItem } from '../vocabulary/index.js'
import {
  encodeAnswer,
  describePlanReview,
  isFilled,
  qualifiesForPlanReview,
} from '../vocabulary/index.js'
import type { AnswerDraft } from '../vocabulary/index.js'

/**
 * What the user has done so far with one question, before the batch is
 * submitted. The answer it turns into is decided by {@link encodeAnswer}.
 */
export interface QuestionDraft {
  /**
   * Chosen labels, in option order. Single-select: at most one, and empty
   * while a custom text replaces the choice.
   */
  selected: string[]
  /** Typed text; present only when it is not blank. */
  custom?: string
  /**
   * The user skipped the question: it answers `{ id, selected: [] }`. The
   * choices and text stay in the draft, so going back and answering restores
   * them; any answering event clears the flag.
   */
  skipped: boolean
}

/** The flow's state: the questions, which one is shown, and a draft per question. */
export interface QuestionnaireContext {
  /** The batch, as the seam validated it. Never changes. */
  questions: AskUserQuestionItem[]
  /** The position of the question on screen, from 0 to `questions.length - 1`. */
  index: number
  /** One draft per question, keyed by question id. */
  drafts: Record<string, QuestionDraft>
}

/** What starts a questionnaire: a batch the seam already validated. */
export interface QuestionnaireInput {
  questions: AskUserQuestionItem[]
}

/**
 * Everything a UI can tell the flow. An event that does not fit the current
 * question (a label it does not offer, an index out of range, a toggle on a
 * single-select question, ...) is ignored: the snapshot does not change.
 */
export type QuestionnaireEvent =
  /** Single-select: choose this label (it replaces typed text) and move on. */
  | { type: 'option.chosen'; label: string }
  /** Multi-select: add or remove this label. */
  | { type: 'option.toggled'; label: string }
  /** Set the typed text of the current question; blank text removes it. */
  | { type: 'custom.typed'; text: string }
  /** Skip the current question and move on. */
  | { type: 'question.skipped' }
  | { type: 'question.back' }
  | { type: 'question.next' }
  /** Show the question at this position. */
  | { type: 'question.selected'; index: number }
  /** Finish; taken only once every question is answered or skipped. */
  | { type: 'batch.submitted' }
  /** Dismiss the whole batch. */
  | { type: 'batch.cancelled' }
  /** Plan review: approve the plan. */
  | { type: 'plan.approved' }
  /** Plan review: send the plan back, with optional feedback. */
  | { type: 'plan.refused'; feedback?: string }
  /** Plan review: the user wants to talk instead of answering. */
  | { type: 'plan.discussed' }

/** Why a questionnaire ended without an answer. `discuss`: the user wants to talk instead. */
export type QuestionnaireCancelReason = 'dismissed' | 'discuss'

/** How a questionnaire ended: a canonical answer, or a cancellation with its reason. */
export type QuestionnaireOutput =
  | { status: 'submitted'; answer: AskUserQuestionAnswer }
  | { status: 'cancelled'; reason: QuestionnaireCancelReason }

/** The draft of question `id` (an empty one if the id is unknown). */
export function draftOf(context: QuestionnaireContext, id: string): QuestionDraft {
  return Object.hasOwn(context.drafts, id)
    ? (context.drafts[id] as QuestionDraft)
    : { selected: [], skipped: false }
}

/** The question on screen. */
export function currentQuestion(context: QuestionnaireContext): AskUserQuestionItem {
  return context.questions[context.index] as AskUserQuestionItem
}

/** Whether question `id` is settled: skipped, or with a choice or non-blank text. */
export function isQuestionAnswered(context: QuestionnaireContext, id: string): boolean {
  const draft = draftOf(context, id)
  return draft.skipped || draft.selected.length > 0 || isFilled(draft.custom)
}

/** Whether the batch can be submitted: every question is answered or skipped. */
export function canSubmit(context: QuestionnaireContext): boolean {
  return context.questions.every((question) => isQuestionAnswered(context, question.id))
}

/** The canonical answer the drafts make right now (what submitting would send). */
export function previewAnswer(context: QuestionnaireContext): AskUserQuestionAnswer {
  const drafts: AnswerDraft[] = context.questions.map(({ id }) => ({ id, ...draftOf(context, id) }))
  return encodeAnswer(context.questions, drafts)
}

/**
 * What a provider returns for a finished questionnaire: the answer, or a
 * thrown `ASK_CANCELLED` whose `details.reason` says why.
 */
export function questionnaireAnswer(output: QuestionnaireOutput): AskUserQuestionAnswer {
  if (output.status === 'submitted') return output.answer
  const message =
    output.reason === AskEndReasons.DISCUSS
      ? 'The user wants to discuss the plan instead of answering'
      : 'The user dismissed the questions'
  return throwCancelled(message, output.reason)
}

function throwCancelled(message: string, reason: QuestionnaireCancelReason): never {
  throw new UserQuestionError(message, 'ASK_CANCELLED', { details: { reason } })
}

function offers(question: AskUserQuestionItem, label: string): boolean {
  return (question.options ?? []).some((option) => option.label === label)
}

function inOptionOrder(question: AskUserQuestionItem, labels: ReadonlySet<string>): string[] {
  return (question.options ?? []).map(({ label }) => label).filter((label) => labels.has(label))
}

function withDraft(
  context: QuestionnaireContext,
  id: string,
  draft: QuestionDraft,
): Record<string, QuestionDraft> {
  // A computed key defines an own property, so ids such as "__proto__" stay plain data.
  return { ...context.drafts, [id]: draft }
}

function nextIndex(context: QuestionnaireContext): number {
  return Math.min(context.index + 1, context.questions.length - 1)
}

function draftWithCustom(draft: QuestionDraft, text: string | undefined): QuestionDraft {
  const { custom: _previous, ...rest } = draft
  return isFilled(text) ? { ...rest, custom: text } : rest
}

/**
 * The UI-side question flow every UI drives: one question at a time, choose
 * (single-select advances), toggle (multi-select), custom text, skip,
 * back/next/select, submit once every question is answered or skipped, cancel
 * the whole batch. A batch that {@link qualifiesForPlanReview} starts in
 * `planReview` instead, with approve / refuse / discuss. It also takes skip
 * and cancel, so every answer the generic list could give stays reachable;
 * askseam's own UIs offer only the three decisions. Refusing
 * answers the other option; feedback, when typed, replaces it as `custom`.
 * The output's answer is built by `encodeAnswer`, so it is canonical by
 * construction. Blank `custom.typed` clears text already typed; with none to
 * clear it is ignored.
 *
 * Tests and UIs that want the generic list for a plan review swap the guard:
 * `questionnaireMachine.provide({ guards: { qualifiesForPlanReview: () => false } })`.
 *
 * @example
 * ```ts
 * const actor = createActor(questionnaireMachine, { input: { questions } }).start()
 * actor.send({ type: 'option.chosen', label: 'eu-west-1 (Recommended)' })
 * actor.send({ type: 'batch.submitted' })
 * actor.getSnapshot().output // { status: 'submitted', answer: { answers: [...] } }
 * ```
 */
export const questionnaireMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as QuestionnaireContext,
    events: {} as QuestionnaireEvent,
    input: {} as QuestionnaireInput,
    output: {} as QuestionnaireOutput,
  },
  guards: {
    qualifiesForPlanReview: ({ context }) => qualifiesForPlanReview(context.questions),
    isOfferedSingleChoice: ({ context }, chosen: { label: string }) => {
      const question = currentQuestion(context)
      return question.multiSelect !== true && offers(question, chosen.label)
    },
    isOfferedToggle: ({ context }, toggled: { label: string }) => {
      const question = currentQuestion(context)
      return question.multiSelect === true && offers(question, toggled.label)
    },
    changesCustomText: ({ context }, typed: { text: string }) => {
      // A sender outside TypeScript (a page, a terminal) may send anything.
      if (typeof typed.text !== 'string') return false
      // Blank text only clears text that is there; with nothing to clear it is no input at all.
      return (
        isFilled(typed.text) || draftOf(context, currentQuestion(context).id).custom !== undefined
      )
    },
    hasPreviousQuestion: ({ context }) => context.index > 0,
    hasNextQuestion: ({ context }) => context.index < context.questions.length - 1,
    isQuestionIndex: ({ context }, selected: { index: number }) =>
      Number.isInteger(selected.index) &&
      selected.index >= 0 &&
      selected.index < context.questions.length,
    isEveryQuestionSettled: ({ context }) => canSubmit(context),
    canRefusePlan: ({ context }, refused: { feedback?: string }) => {
      const review = describePlanReview(context.questions)
      return review?.refuse !== undefined || isFilled(refused.feedback)
    },
  },
  actions: {
    chooseOption: assign(({ context }, chosen: { label: string }) => {
      const { id } = currentQuestion(context)
      return {
        drafts: withDraft(context, id, { selected: [chosen.label], skipped: false }),
        index: nextIndex(context),
      }
    }),
    toggleOption: assign(({ context }, toggled: { label: string }) => {
      const question = currentQuestion(context)
      const draft = draftOf(context, question.id)
      const labels = new Set(draft.selected)
      if (labels.has(toggled.label)) labels.delete(toggled.label)
      else labels.add(toggled.label)
      const selected = inOptionOrder(question, labels)
      return { drafts: withDraft(context, question.id, { ...draft, selected, skipped: false }) }
    }),
    typeCustomText: assign(({ context }, typed: { text: string }) => {
      const question = currentQuestion(context)
      const draft = draftWithCustom(draftOf(context, question.id), typed.text)
      // Single-select: typed text replaces the choice (DESIGN §5).
      const selected =
        question.multiSelect !== true && isFilled(typed.text) ? [] : [...draft.selected]
      return { drafts: withDraft(context, question.id, { ...draft, selected, skipped: false }) }
    }),
    skipQuestion: assign(({ context }) => {
      const { id } = currentQuestion(context)
      return {
        drafts: withDraft(context, id, { ...draftOf(context, id), skipped: true }),
        index: nextIndex(context),
      }
    }),
    showPreviousQuestion: assign(({ context }) => ({ index: Math.max(context.index - 1, 0) })),
    showNextQuestion: assign(({ context }) => ({ index: nextIndex(context) })),
    showSelectedQuestion: assign((_, selected: { index: number }) => ({ index: selected.index })),
    recordApproval: assign(({ context }) => {
      const review = describePlanReview(context.questions)
      if (review === undefined) return {}
      return {
        drafts: withDraft(context, review.question.id, {
          selected: [review.approve.label],
          skipped: false,
        }),
      }
    }),
    recordRefusal: assign(({ context }, refused: { feedback?: string }) => {
      const review = describePlanReview(context.questions)
      if (review === undefined) return {}
      // With feedback, the typed text replaces the refusing option, as a typed answer does.
      const base: QuestionDraft = {
        selected:
          review.refuse === undefined || isFilled(refused.feedback) ? [] : [review.refuse.label],
        skipped: false,
      }
      return {
        drafts: withDraft(context, review.question.id, draftWithCustom(base, refused.feedback)),
      }
    }),
  },
}).createMachine({
  id: 'questionnaire',
  context: ({ input }) => ({
    questions: input.questions,
    index: 0,
    drafts: Object.fromEntries(
      input.questions.map(({ id }): [string, QuestionDraft] => [
        id,
        { selected: [], skipped: false },
      ]),
    ),
  }),
  initial: 'opening',
  states: {
    opening: {
      always: [{ guard: 'qualifiesForPlanReview', target: 'planReview' }, { target: 'answering' }],
    },
    answering: {
      on: {
        'option.chosen': {
          guard: { type: 'isOfferedSingleChoice', params: ({ event }) => event },
          actions: { type: 'chooseOption', params: ({ event }) => event },
        },
        'option.toggled': {
          guard: { type: 'isOfferedToggle', params: ({ event }) => event },
          actions: { type: 'toggleOption', params: ({ event }) => event },
        },
        'custom.typed': {
          guard: { type: 'changesCustomText', params: ({ event }) => event },
          actions: { type: 'typeCustomText', params: ({ event }) => event },
        },
        'question.skipped': { actions: 'skipQuestion' },
        'question.back': { guard: 'hasPreviousQuestion', actions: 'showPreviousQuestion' },
        'question.next': { guard: 'hasNextQuestion', actions: 'showNextQuestion' },
        'question.selected': {
          guard: { type: 'isQuestionIndex', params: ({ event }) => event },
          actions: { type: 'showSelectedQuestion', params: ({ event }) => event },
        },
        'batch.submitted': { guard: 'isEveryQuestionSettled', target: 'submitted' },
        'batch.cancelled': { target: 'cancelled' },
      },
    },
    planReview: {
      on: {
        'plan.approved': { target: 'submitted', actions: 'recordApproval' },
        'plan.refused': {
          guard: { type: 'canRefusePlan', params: ({ event }) => event },
          target: 'submitted',
          actions: { type: 'recordRefusal', params: ({ event }) => event },
        },
        'plan.discussed': { target: 'cancelled' },
        'question.skipped': { target: 'submitted', actions: 'skipQuestion' },
        'batch.cancelled': { target: 'cancelled' },
      },
    },
    submitted: {
      type: 'final',
      output: ({ context }): QuestionnaireOutput => ({
        status: 'submitted',
        answer: previewAnswer(context),
      }),
    },
    cancelled: {
      type: 'final',
      output: ({ event }): QuestionnaireOutput => ({
        status: 'cancelled',
        reason: event.type === 'plan.discussed' ? AskEndReasons.DISCUSS : AskEndReasons.DISMISSED,
      }),
    },
  },
  output: finalStateOutput<QuestionnaireOutput>,
})
