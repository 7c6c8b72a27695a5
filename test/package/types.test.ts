/**
 * Type tests of the public API (checked by `npm run typecheck`; at run time
 * expectTypeOf is inert). Imports are type-only: what is tested is what the
 * declarations say.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { Actor } from 'xstate'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  ProviderRequest,
  UserQuestionError,
  UserQuestionErrorCode,
  UserQuestionProvider,
  UserQuestions,
  UserQuestionsOptions,
  createAgentRegistry,
  createUserQuestions,
  isUserQuestionError,
} from '../../src/protocol/index.js'
import type {
  QuestionnaireOutput,
  questionnaireAnswer,
  questionnaireMachine,
} from '../../src/machines/index.js'
import type {
  TerminalProvider,
  createTerminalProvider,
} from '../../src/providers/terminal/index.js'
import type {
  RelayCloseReason,
  RelayOptions,
  WebConsole,
  startWebConsole,
} from '../../src/providers/web/index.js'
import type {
  ElicitationDialect,
  ElicitationProvider,
  createElicitationProvider,
} from '../../src/providers/mcp/index.js'
import type {
  AskUserQuestionTool,
  AskUserQuestionToolResult,
  createAskUserQuestionTool,
} from '../../src/tool/index.js'

describe('public types', () => {
  it('askseam: the seam and its options', () => {
    expectTypeOf<typeof createUserQuestions>()
      .parameter(0)
      .toEqualTypeOf<UserQuestionsOptions | undefined>()
    expectTypeOf<typeof createUserQuestions>().returns.toEqualTypeOf<UserQuestions>()
    expectTypeOf<UserQuestionsOptions['requireAgent']>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf<UserQuestions['ask']>().parameter(0).toEqualTypeOf<AskUserQuestionRequest>()
    expectTypeOf<UserQuestions['ask']>().returns.resolves.toEqualTypeOf<AskUserQuestionAnswer>()
    expectTypeOf<AskUserQuestionAnswer['answers'][number]>().toEqualTypeOf<{
      id: string
      selected: string[]
      custom?: string
    }>()
    expectTypeOf<ProviderRequest['signal']>().toEqualTypeOf<AbortSignal>()
    expectTypeOf<ReturnType<typeof createAgentRegistry>['enter']>().returns.toEqualTypeOf<
      () => void
    >()
  })

  it('askseam: errors carry a code from the table', () => {
    expectTypeOf<UserQuestionError['code']>().toEqualTypeOf<UserQuestionErrorCode>()
    expectTypeOf<'CALLER_NOT_LIVE'>().toExtend<UserQuestionErrorCode>()
    expectTypeOf<'NOT_A_CODE'>().not.toExtend<UserQuestionErrorCode>()
    expectTypeOf<typeof isUserQuestionError>().guards.toEqualTypeOf<UserQuestionError>()
  })

  it('askseam/machines: a custom UI gets the answer type back', () => {
    expectTypeOf<typeof questionnaireAnswer>().parameter(0).toEqualTypeOf<QuestionnaireOutput>()
    expectTypeOf<typeof questionnaireAnswer>().returns.toEqualTypeOf<AskUserQuestionAnswer>()
    expectTypeOf<Actor<typeof questionnaireMachine>['send']>().parameter(0).not.toBeAny()
  })

  it('askseam/terminal, askseam/web, askseam/mcp: providers are providers', () => {
    expectTypeOf<ReturnType<typeof createTerminalProvider>>().toEqualTypeOf<TerminalProvider>()
    expectTypeOf<TerminalProvider>().toExtend<UserQuestionProvider>()
    expectTypeOf<TerminalProvider['dispose']>().returns.toBeVoid()
    expectTypeOf<ReturnType<typeof createElicitationProvider>>().toExtend<ElicitationProvider>()
    expectTypeOf<ElicitationProvider>().toExtend<UserQuestionProvider>()
    expectTypeOf<ElicitationProvider['dialect']>().toEqualTypeOf<ElicitationDialect>()
    expectTypeOf<ElicitationDialect>().toEqualTypeOf<'titled' | 'legacy'>()
    expectTypeOf<typeof startWebConsole>().returns.resolves.toEqualTypeOf<WebConsole>()
    expectTypeOf<WebConsole['url']>().toBeString()
    expectTypeOf<RelayCloseReason>().toEqualTypeOf<'congested' | 'relay-disposed'>()
    expectTypeOf<RelayOptions>().not.toBeAny()
  })

  it('askseam/tool: execute resolves with the line for the model', () => {
    expectTypeOf<
      ReturnType<typeof createAskUserQuestionTool>
    >().toEqualTypeOf<AskUserQuestionTool>()
    expectTypeOf<AskUserQuestionTool['name']>().toEqualTypeOf<'ask_user_question'>()
    expectTypeOf<AskUserQuestionTool['execute']>().parameter(0).toBeUnknown()
    expectTypeOf<AskUserQuestionTool['execute']>().returns.resolves.toBeString()
    expectTypeOf<
      AskUserQuestionTool['executeForResult']
    >().returns.resolves.toEqualTypeOf<AskUserQuestionToolResult>()
  })
})
