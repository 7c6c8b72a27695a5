import { currentQuestion, draftOf } from '../../../machines/index.js'
import { cardKeys, keyHint, renderCustomInput, renderProgress } from './answering-parts.js'
import { h } from './dom.js'
import { renderOptions } from './options-view.js'
import {
  deadlineBadge,
  eventButton,
  nextId,
  questionList,
  sessionBadge,
  viewKey,
} from './view-kit.js'
import type { AskView, AskViewContext, QuestionnaireSnapshot } from './view-kit.js'

/** The generic flow: one question at a time with progress, options, own answer, skip, back, submit. */
export function renderAnswering(snapshot: QuestionnaireSnapshot, context: AskViewContext): AskView {
  const { send } = context
  const { questions, index } = snapshot.context
  const question = currentQuestion(snapshot.context)
  const multi = question.multiSelect === true
  const options = question.options ?? []
  const titleId = nextId('question')
  const customId = nextId('custom')
  const submitHintId = nextId('submit-hint')
  const total = questions.length
  let latest = snapshot

  /** Enter's meaning on a question: submit when the machine allows it, else the next question. */
  function submitOrAdvance(): void {
    if (latest.can({ type: 'batch.submitted' })) send({ type: 'batch.submitted' })
    else if (latest.can({ type: 'question.next' })) send({ type: 'question.next' })
  }

  const progress = renderProgress(questions, send)
  const group = renderOptions(question, titleId, send, submitOrAdvance)
  const custom = renderCustomInput(customId, options.length > 0, send, submitOrAdvance)
  const back = eventButton(send, { type: 'question.back' }, 'Back')
  const skip = eventButton(send, { type: 'question.skipped' }, 'Skip')
  const next = eventButton(send, { type: 'question.next' }, 'Next')
  const submit = eventButton(send, { type: 'batch.submitted' }, 'Submit', 'button primary')
  submit.setAttribute('aria-describedby', submitHintId)
  const submitHint = h('p', { className: 'submit-hint', attrs: { id: submitHintId } })
  // One question has nothing to go back to, skip past or dismiss "all" of: a quiet Dismiss is enough.
  const single = total === 1
  const dismiss = eventButton(
    send,
    { type: 'batch.cancelled' },
    single ? 'Dismiss' : 'Dismiss all',
    'button ghost danger',
    single
      ? 'Dismiss the question: the agent is told you declined'
      : 'Dismiss the whole batch: the agent is told you declined',
  )

  const root = h(
    'section',
    {
      className: 'card',
      attrs: { 'aria-labelledby': titleId, 'data-state': 'answering' },
      on: { keydown: cardKeys(group, submitOrAdvance) },
    },
    [
      h('div', { className: 'card-head' }, [
        question.header !== undefined && h('span', { className: 'chip', text: question.header }),
        !single && h('span', { className: 'counter', text: `Question ${index + 1} of ${total}` }),
        deadlineBadge(context.deadline),
        sessionBadge(context.sessionId),
      ]),
      !single && progress.progress,
      total > 1 &&
        h('nav', { className: 'steps', attrs: { 'aria-label': 'Questions' } }, progress.steps),
      h('h2', { className: 'question', text: question.question, attrs: { id: titleId } }),
      question.detail !== undefined && h('p', { className: 'detail', text: question.detail }),
      group?.root,
      multi && options.length > 0 && h('p', { className: 'hint', text: 'Choose any number.' }),
      h('div', { className: 'custom' }, [
        h('label', {
          className: 'custom-label',
          text:
            options.length === 0
              ? 'Your answer'
              : multi
                ? 'Add your own'
                : 'Or answer in your own words',
          attrs: { for: customId },
        }),
        custom,
      ]),
      h('div', { className: 'actions' }, [
        dismiss,
        h('span', { className: 'spacer' }),
        !single && back,
        !single && skip,
        index < total - 1 && next,
        submit,
      ]),
      submitHint,
      h(
        'p',
        { className: 'keys', attrs: { 'aria-hidden': 'true' } },
        keyHint(options.length > 0, multi),
      ),
    ],
  )

  function update(snapshot: QuestionnaireSnapshot): void {
    latest = snapshot
    const draft = draftOf(snapshot.context, question.id)
    const open = progress.update(snapshot.context)
    group?.update(draft.selected)
    // While the field has focus it holds what the user is typing; the machine only mirrors it.
    if (document.activeElement !== custom) custom.value = draft.custom ?? ''
    skip.setAttribute('aria-pressed', String(draft.skipped))
    back.disabled = !snapshot.can({ type: 'question.back' })
    next.disabled = !snapshot.can({ type: 'question.next' })
    submit.disabled = !snapshot.can({ type: 'batch.submitted' })
    submitHint.textContent = submit.disabled ? `Answer ${questionList(open)} to submit` : ''
  }

  update(snapshot)
  return {
    key: viewKey(snapshot),
    root,
    update,
    focus: () => (group?.focusTarget() ?? custom).focus(),
  }
}
