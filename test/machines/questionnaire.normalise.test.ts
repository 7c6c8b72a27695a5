/**
 * One rule for typed text, whatever the UI: the terminal and the web console
 * drive questionnaireMachine with the raw text of their field, an MCP client's
 * form content is decoded into drafts; all three end in encodeAnswer, which
 * normalises typed text once (line breaks to LF, then trim). The same
 * keystrokes therefore give the same answer everywhere.
 */
import { describe, expect, it } from 'vitest'
import { createActor } from 'xstate'
import { questionnaireMachine } from '../../src/machines/index.js'
import type { AskUserQuestionItem } from '../../src/protocol/index.js'
import { encodeAnswer } from '../../src/protocol/index.js'
import { buildElicitationForm } from '../../src/providers/mcp/form.js'
import { decodeContent } from '../../src/providers/mcp/index.js'

const questions: AskUserQuestionItem[] = [
  { id: 'notes', question: 'Anything else?' },
  { id: 'region', question: 'Which region?', options: [{ label: 'eu' }, { label: 'us' }] },
]

const typings = ['  ship it  ', '\tline one\r\nline two\r\n', 'plain', ' \n ', 'a\rb']

function viaMachine(text: string) {
  const actor = createActor(questionnaireMachine, { input: { questions } }).start()
  actor.send({ type: 'custom.typed', text })
  actor.send({ type: 'question.next' })
  actor.send({ type: 'custom.typed', text })
  actor.send({ type: 'batch.submitted' })
  const output = actor.getSnapshot().output
  if (output?.status === 'submitted') return output.answer
  // Blank text is no answer: the questions must be skipped to submit.
  actor.send({ type: 'question.skipped' })
  return undefined
}

function viaMcp(text: string) {
  const form = buildElicitationForm(questions, 'titled')
  const [notes, region] = form.fields
  const content: Record<string, unknown> = {}
  if (notes?.key !== undefined) content[notes.key] = text
  if (region?.customKey !== undefined) content[region.customKey] = text
  return encodeAnswer(questions, decodeContent(form, content))
}

describe('typed text is normalised once, in encodeAnswer', () => {
  it.each(typings)('the machine (terminal, web) and the MCP decoder agree on %j', (text) => {
    const expected = text.replace(/\r\n?/g, '\n').trim()
    const machine = viaMachine(text)
    const mcp = viaMcp(text)
    if (expected === '') {
      expect(machine).toBeUndefined()
      expect(mcp).toEqual({
        answers: [
          { id: 'notes', selected: [] },
          { id: 'region', selected: [] },
        ],
      })
      return
    }
    const answer = {
      answers: [
        { id: 'notes', selected: [], custom: expected },
        { id: 'region', selected: [], custom: expected },
      ],
    }
    expect(machine).toEqual(answer)
    expect(mcp).toEqual(answer)
  })
})
