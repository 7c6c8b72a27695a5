import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  ProviderRequest,
  UserQuestionProvider,
  UserQuestions,
} from '../protocol/index.js'
import type { TerminalStyle } from '../providers/terminal/index.js'
import { deploymentQuestions, draftPlan, planReviewQuestion } from './scenario.js'

/** One call of the model-facing tool: what the model sent and the exact string it got back. */
export interface ToolCallRecord {
  /** What the call was for, in a few words. */
  purpose: string
  /** The tool's result string, exactly as the model receives it. */
  result: string
}

/** Runs the model-facing `ask_user_question` tool with a batch; resolves with its result string. */
export type AskTool = (questions: AskUserQuestionItem[], signal?: AbortSignal) => Promise<string>

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** The seam the agent asks through (its provider is the terminal or the web console). */
  seam: UserQuestions
  /** How the agent calls `ask_user_question`. */
  askTool: AskTool
  /** Where the agent's steps are printed. */
  write: (text: string) => void
  style: TerminalStyle
  /** Waits between steps so they read like an agent at work. @default no wait */
  pause?: (milliseconds: number) => Promise<void>
  /**
   * Where the questions are answered when it is not this terminal (the web
   * console's address): each call then prints a line saying what it waits
   * for and where. @default the terminal itself (the prompt shows)
   */
  answerAt?: string
  /** The terminal's width now, for wrapping the agent's steps. @default 80 columns */
  columns?: () => number
}

/** What a question is, for telling one call's batch from another: ids and wording. */
const batchOf = (questions: readonly AskUserQuestionItem[]) =>
  JSON.stringify(questions.map(({ id, question }) => [id, question]))

/**
 * Shows each ask only once the script has reached the call that makes it. A
 * demo run again finds its open question in the store, and the seam presents
 * it at once; the script first replays the steps before that call, and a
 * prompt drawn then would sit among them. `calling` says which batch the
 * script asks now; the provider holds any other until its turn comes.
 */
export function inScriptOrder(provider: UserQuestionProvider): {
  provider: UserQuestionProvider
  calling(questions: readonly AskUserQuestionItem[]): void
} {
  let current: string | undefined
  const held = new Map<ProviderRequest, () => void>()
  return {
    provider: {
      ask(request) {
        if (batchOf(request.questions) === current) return provider.ask(request)
        return new Promise<AskUserQuestionAnswer>((resolve, reject) => {
          const gone = () => {
            held.delete(request)
            reject(request.signal.reason)
          }
          held.set(request, () => {
            request.signal.removeEventListener('abort', gone)
            provider.ask(request).then(resolve, reject)
          })
          request.signal.addEventListener('abort', gone, { once: true })
        })
      },
    },
    calling(questions) {
      current = batchOf(questions)
      for (const [request, release] of [...held]) {
        if (batchOf(request.questions) !== current) continue
        held.delete(request)
        release()
      }
    },
  }
}

/**
 * Words broken to the terminal's width, later lines under the first word:
 * `lead` columns in, where the first line's words start (` ● ` is three).
 */
export function wrapped(text: string, columns: number, lead = 3): string {
  const width = Math.max(20, columns - lead - 1)
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line === '' ? word : `${line} ${word}`
  }
  lines.push(line)
  return lines.join(`\n${' '.repeat(lead)}`)
}

/**
 * The tool's result for a terminal `columns` wide, every character kept:
 * JSON breaks after a comma outside its strings, a sentence (an error's)
 * between words, so no word or value is cut in two by the terminal's own
 * wrap. Later lines go under the first, four columns in.
 */
export function wrappedResult(result: string, columns: number): string {
  const width = Math.max(20, columns - 5)
  if (result.length <= width) return result
  // Pieces that end where a line may break: after a comma outside a string, or after a space.
  const pieces: string[] = []
  let piece = ''
  let quoted = false
  let escaped = false
  for (const character of result) {
    piece += character
    if (escaped) escaped = false
    else if (character === '\\' && quoted) escaped = true
    else if (character === '"') quoted = !quoted
    else if ((character === ',' && !quoted) || character === ' ') {
      pieces.push(piece)
      piece = ''
    }
  }
  if (piece !== '') pieces.push(piece)
  const lines: string[] = []
  let line = ''
  for (let rest of pieces) {
    if (line !== '' && line.length + rest.length > width) {
      lines.push(line)
      line = ''
    }
    // A piece longer than a whole line (a long value with no space) is cut where it must be.
    while (line === '' && rest.length > width) {
      lines.push(rest.slice(0, width))
      rest = rest.slice(width)
    }
    line += rest
  }
  if (line !== '') lines.push(line)
  return lines.join('\n    ')
}

interface ParsedAnswer {
  answers?: { id?: string; selected?: string[]; custom?: string }[]
}

function parseAnswers(result: string): ParsedAnswer | undefined {
  try {
    const parsed = JSON.parse(result) as unknown
    if (typeof parsed !== 'object' || parsed === null) return undefined
    return Array.isArray((parsed as ParsedAnswer).answers) ? (parsed as ParsedAnswer) : undefined
  } catch {
    return undefined
  }
}

function answerOf(parsed: ParsedAnswer, id: string): { selected: string[]; custom?: string } {
  const item = parsed.answers?.find((answer) => answer.id === id)
  const selected = item?.selected ?? []
  return item?.custom === undefined ? { selected } : { selected, custom: item.custom }
}

/**
 * The scripted agent of `askseam demo`: it prepares a deployment, stops
 * halfway to ask three questions through `ask_user_question`, writes its plan
 * from the answers, submits the plan for review, and finally prints exactly
 * what the model received from each call. No model and no network.
 */
export async function runDemo(options: DemoOptions): Promise<ToolCallRecord[]> {
  const { style, write } = options
  const pause = options.pause ?? (async () => undefined)
  const calls: ToolCallRecord[] = []
  const step = async (text: string) => {
    await pause(250)
    write(` ${style.accent('●')} ${wrapped(text, options.columns?.() ?? 80)}\n`)
  }
  const call = async (purpose: string, questions: AskUserQuestionItem[]) => {
    const width = options.columns?.() ?? 80
    const calling = purpose.length + 28 <= width ? ' · calling ask_user_question' : ''
    write(` ${style.warning('◆')} ${style.bold(purpose)} ${style.dim(calling.slice(1))}\n\n`)
    if (options.answerAt !== undefined) {
      const count =
        questions.length === 1 ? 'an answer' : `answers to ${questions.length} questions`
      write(
        ` ${style.dim('⧗')} Waiting for ${count} in the web console (Ctrl-C stops):\n   ${style.accent(options.answerAt)}\n`,
      )
    }
    const result = await options.askTool(questions)
    calls.push({ purpose, result })
    write(
      `\n ${style.dim('↳ the model receives')}\n    ${wrappedResult(result, options.columns?.() ?? 80)}\n\n`,
    )
    return result
  }

  const subtitle =
    (options.columns?.() ?? 80) >= 60 ? ' · a scripted agent; no model, no network' : ''
  write(`\n ${style.bold('askseam demo')}${style.dim(subtitle)}\n\n`)
  await step('Read the service manifest: checkout-service v2.4.0')
  await step('Found the running release: v2.3.9 in eu-west-1, 3 replicas')
  await step('Drafted a rollout: build, gates, canary, full shift')
  await pause(250)
  const first = parseAnswers(await call('Three decisions need a human', deploymentQuestions))

  if (first === undefined) {
    await step('No answers, so the agent stops here and will ask in the chat instead')
  } else {
    const { region, plan } = draftPlan(first.answers ?? [])
    await step(`Wrote the plan for ${region}`)
    await pause(250)
    const review = planReviewQuestion(plan)
    const verdict = parseAnswers(await call('The plan needs approval', [review]))
    const decision = verdict === undefined ? undefined : answerOf(verdict, review.id)
    if (decision === undefined) {
      await step('No verdict, so nothing is deployed; the agent waits to talk it over')
    } else if (decision.selected.includes(review.intent?.approve ?? 'Approve')) {
      await step('Approved: the agent would deploy now (the demo stops here)')
    } else if (decision.custom !== undefined || decision.selected.length > 0) {
      await step('Sent back: the agent revises the plan and does not deploy')
    } else {
      await step('Skipped: without approval the agent does not deploy')
    }
  }

  write(`\n ${style.bold('What the model received')}\n`)
  calls.forEach((record, index) => {
    const result = wrappedResult(record.result, options.columns?.() ?? 80)
    write(` ${style.dim(`${index + 1}.`)} ${record.purpose}\n    ${result}\n`)
  })
  write('\n')
  return calls
}
