import { parseArgs } from 'node:util'
import { createUserQuestions, isUserQuestionError } from '../protocol/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  UserQuestions,
} from '../protocol/index.js'
import { inScriptOrder, runDemo } from './demo.js'
import { demoKind, openDemoStore, openStore } from './stores.js'
// The style file alone: the terminal's entry point would load its peer `marked`.
import { createStyle, supportsColor } from '../providers/terminal/style.js'
import type { StoreChoice } from './stores.js'
import type { AskTool } from './demo.js'
import { COMMAND_HELP, HELP, USAGE } from './help.js'
import { packageVersion } from './version.js'

/** A failure the user caused or can fix: one line on stderr, no stack trace. */
class UsageError extends Error {}

/** A mistake in the command line: one line saying what, then the usage. */
class CommandLineError extends UsageError {}

const options = {
  timeout: { type: 'string' },
  web: { type: 'boolean', default: false },
  framework: { type: 'string' },
  store: { type: 'string' },
  postgres: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  fresh: { type: 'boolean', default: false },
  webhook: { type: 'string' },
  secret: { type: 'string' },
  'console-url': { type: 'string' },
  'notify-after': { type: 'string' },
  'remind-every': { type: 'string' },
  'max-reminders': { type: 'string' },
  'escalate-after': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
} as const

/** The long options that take a value: `--timeout`, `--port`, … */
const takesValue = new Set(
  Object.entries(options)
    .filter(([, option]) => option.type === 'string')
    .map(([name]) => `--${name}`),
)

/**
 * `--timeout -1` as `--timeout=-1`: parseArgs reads a value that starts with
 * a dash as a mistake of its own, and the user would be told about dashes
 * instead of about the number.
 */
function withNegativeValues(argv: readonly string[]): string[] {
  const joined: string[] = []
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] as string
    const next = argv[index + 1]
    if (takesValue.has(arg) && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`)
      index += 1
    } else joined.push(arg)
  }
  return joined
}

function parse(argv: readonly string[]) {
  try {
    return parseArgs({ args: withNegativeValues(argv), allowPositionals: true, options })
  } catch (error: unknown) {
    throw new CommandLineError(commandLineMistake(error))
  }
}

// parseArgs explains itself at length ("To specify a positional argument
// starting with a '-', place it at the end..."): keep only what went wrong.
function commandLineMistake(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  const option = /'(-{1,2}[^'\s]+)/.exec(message)?.[1]
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined) {
    return `unknown option ${option}`
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined) {
    const name = option.split(' ')[0] as string
    if (/argument missing/.test(message)) return `option ${name} needs a value`
    // "--port --token x": the value is missing, or starts with a dash.
    if (/ambiguous/.test(message)) {
      return `option ${name} needs a value (a value starting with "-" is written ${name}=-…)`
    }
    return `option ${name} takes no value`
  }
  return message.split('\n')[0] ?? message
}

function timeoutOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const seconds = Number(value)
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 2_147_483) {
    throw new UsageError(`--timeout takes a number of seconds greater than 0, not "${value}"`)
  }
  return Math.round(seconds * 1000)
}

function storeChoice(values: {
  store?: string | undefined
  postgres?: string | undefined
}): StoreChoice {
  return {
    ...(values.store === undefined ? {} : { sqlitePath: values.store }),
    ...(values.postgres === undefined ? {} : { postgresUrl: values.postgres }),
  }
}

function portOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const port = Number(value)
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new UsageError(`--port takes a port number from 1 to 65535, not "${value}"`)
  }
  return port
}

/** `--remind-every 30` as milliseconds; a value that is not a number of seconds is one line. */
function secondsOf(flag: string, value: string | undefined, least: 'zero' | 'above-zero') {
  if (value === undefined) return undefined
  const seconds = value.trim() === '' ? Number.NaN : Number(value)
  const ok = least === 'zero' ? seconds >= 0 : seconds > 0
  if (!Number.isFinite(seconds) || !ok || seconds > 2_147_483) {
    const bound = least === 'zero' ? '0 or more' : 'greater than 0'
    throw new UsageError(`${flag} takes a number of seconds ${bound}, not "${value}"`)
  }
  return Math.round(seconds * 1000)
}

/** The flag of each option of startNotifier that `askseam notify` sets. */
const NOTIFY_FLAGS: Readonly<Record<string, string>> = {
  'webhook.url': '--webhook',
  'webhook.secret': '--secret',
  consoleUrl: '--console-url',
}

/** The notifier's options from `askseam notify`'s flags, each checked here or by `startNotifier`. */
function notifierOptions(values: {
  webhook?: string | undefined
  secret?: string | undefined
  'console-url'?: string | undefined
  'notify-after'?: string | undefined
  'remind-every'?: string | undefined
  'max-reminders'?: string | undefined
  'escalate-after'?: string | undefined
}) {
  if (values.webhook === undefined) throw new UsageError('askseam notify needs --webhook URL')
  if (values.secret === undefined) {
    throw new UsageError('askseam notify needs --secret S (whsec_ followed by base64)')
  }
  const notifyAfterMs = secondsOf('--notify-after', values['notify-after'], 'zero')
  const remindEveryMs = secondsOf('--remind-every', values['remind-every'], 'above-zero')
  const escalateAfterMs = secondsOf('--escalate-after', values['escalate-after'], 'zero')
  const max = values['max-reminders']
  const maxReminders = max === undefined ? undefined : Number(max)
  if (maxReminders !== undefined && !(Number.isSafeInteger(maxReminders) && maxReminders >= 0)) {
    throw new UsageError(`--max-reminders takes a whole number, 0 or more, not "${max}"`)
  }
  return {
    webhook: { url: values.webhook, secret: values.secret },
    ...(values['console-url'] === undefined ? {} : { consoleUrl: values['console-url'] }),
    ...(notifyAfterMs === undefined ? {} : { notifyAfterMs }),
    ...(remindEveryMs === undefined ? {} : { remindEveryMs }),
    ...(maxReminders === undefined ? {} : { maxReminders }),
    ...(escalateAfterMs === undefined ? {} : { escalateAfterMs }),
  }
}

/** What the scripted model writes as the tool's arguments: the batch, in snake_case. */
function toToolArguments(questions: readonly AskUserQuestionItem[]) {
  return {
    questions: questions.map(({ multiSelect, ...rest }) =>
      multiSelect === undefined ? rest : { ...rest, multi_select: multiSelect },
    ),
  }
}

/** The model-facing call: the real `ask_user_question` tool, whose result string the model gets. */
async function askToolFor(seam: UserQuestions): Promise<AskTool> {
  // Loaded here, not at the top: `askseam --version` must work without the UI peers.
  const { createAskUserQuestionTool } = await import('../tool/index.js')
  const tool = createAskUserQuestionTool(seam)
  // One key per call of the script: a demo killed and run again resumes each
  // call where it stood instead of asking again (DESIGN §10).
  let calls = 0
  return (questions, signal) => {
    calls += 1
    return tool.execute(toToolArguments(questions), {
      key: `askseam-demo-call-${calls}`,
      ...(signal === undefined ? {} : { signal }),
    })
  }
}

/** The demo's tool call: plain, or inside a framework's agent loop (loaded only when asked for). */
async function askToolOf(
  seam: UserQuestions,
  framework: string | undefined,
  note: (text: string) => void,
): Promise<AskTool> {
  if (framework === undefined) return askToolFor(seam)
  const { frameworkAskTool, frameworkNote, isDemoFramework, demoFrameworks } =
    await import('./framework-demo.js')
  if (!isDemoFramework(framework)) {
    throw new UsageError(
      `--framework takes one of ${demoFrameworks.join(', ')}, not "${framework}" (see askseam --help)`,
    )
  }
  const askTool = await frameworkAskTool(framework, seam)
  note(frameworkNote[framework])
  return askTool
}

/**
 * How the reader starts the web demo: in this package's checkout `npm start`
 * runs the sources, and `askseam` is not on the PATH there.
 */
function webDemoCommand(): string {
  const inCheckout =
    process.env.npm_lifecycle_event === 'start' && process.env.npm_package_name === 'askseam'
  return inCheckout ? 'npm start -- --web' : 'askseam --web'
}

const pause = (milliseconds: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, milliseconds))

async function demo(options: {
  timeoutMs?: number
  web: boolean
  framework?: string
  fresh: boolean
  shared: StoreChoice
}): Promise<void> {
  const style = createStyle(supportsColor(process.stdout))
  const write = (text: string) => void process.stdout.write(text)
  // Each UI's entry point loads its peer (marked, ws), so a missing one is
  // told first; the web demo does not load the terminal's at all.
  const terminalUi = options.web ? undefined : await import('../providers/terminal/index.js')
  const webUi = options.web ? await import('../providers/web/index.js') : undefined
  if (options.framework !== undefined) {
    // A framework name that cannot run is a usage mistake, told before anything else.
    const { isDemoFramework, demoFrameworks } = await import('./framework-demo.js')
    if (!isDemoFramework(options.framework)) {
      throw new UsageError(
        `--framework takes one of ${demoFrameworks.join(', ')}, not "${options.framework}" (see askseam --help)`,
      )
    }
  }
  if (!options.web && process.stdin.isTTY !== true) {
    throw new UsageError(
      `askseam demo asks its questions in an interactive terminal, and stdin is not one: run it in a terminal, or answer in the browser with \`${webDemoCommand()}\``,
    )
  }
  const shared = await openStore(options.shared)
  const kept =
    shared === undefined
      ? await openDemoStore(
          demoKind({
            web: options.web,
            ...(options.framework === undefined ? {} : { framework: options.framework }),
          }),
          options.fresh,
        )
      : undefined
  const store = shared ?? kept?.store
  if (kept !== undefined) {
    write(`\n ${kept.resumed ? `${style.accent('↻')} ${kept.note}` : style.dim(kept.note)}\n`)
  }
  const seam = createUserQuestions({
    ...(store === undefined ? {} : { store }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  })
  const finished = async (completed: boolean) => {
    await seam.close()
    await store?.close()
    // A demo that ran to its end starts afresh next time.
    if (completed) kept?.forget()
  }
  const askTool = await askToolOf(seam, options.framework, (note) =>
    write(`\n ${style.dim(note)}\n`),
  )
  // Ctrl-C inside a terminal question dismisses the batch; anywhere else it stops the demo.
  let stopWebConsole: () => Promise<void> = async () => undefined
  const interrupted = () => {
    write(`\n ${style.dim('Interrupted.')}\n`)
    void stopWebConsole().finally(() => process.exit(130))
  }
  if (webUi !== undefined) {
    const { startWebConsole } = webUi
    const console = await startWebConsole({ seam })
    stopWebConsole = () => console.close()
    write(
      `\n ${style.bold('Web console')} ${style.dim('· open this page to answer:')}\n ${style.accent(console.url)}\n`,
    )
    process.on('SIGINT', interrupted)
    let completed = false
    try {
      await runDemo({ seam, askTool, write, style, pause, answerAt: console.url })
      completed = true
    } finally {
      process.off('SIGINT', interrupted)
      await console.close()
      await finished(completed)
    }
    return
  }
  const { createTerminalProvider, describeOutcome } =
    terminalUi ?? (await import('../providers/terminal/index.js'))
  const terminal = createTerminalProvider()
  // A resumed demo's open question waits for the script to reach it.
  const turns = inScriptOrder(terminal)
  let presented = 0
  const counted = turns.provider
  const unregister = seam.registerProvider({
    ask(request) {
      presented += 1
      return counted.ask(request)
    },
  })
  const askInTurn: AskTool = async (questions, signal) => {
    turns.calling(questions)
    const before = presented
    const result = await askTool(questions, signal)
    // Answered before the demo stopped: the store gave the answer back, nothing was shown.
    const answer = presented === before ? answeredBefore(result) : undefined
    if (answer !== undefined) {
      const lines = describeOutcome(questions, answer, style, process.stdout.columns ?? 80)
      write(
        ` ${style.accent('↻')} ${style.dim('answered before the demo stopped')}\n${lines.join('\n')}\n`,
      )
    }
    return result
  }
  process.on('SIGINT', interrupted)
  const columns = () => process.stdout.columns ?? 80
  let completed = false
  try {
    await runDemo({ seam, askTool: askInTurn, write, style, pause, columns })
    completed = true
  } finally {
    process.off('SIGINT', interrupted)
    unregister()
    terminal.dispose()
    await finished(completed)
  }
}

/** Runs the askseam command with `argv` (without the node and script paths). */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    const { values, positionals } = parse(argv)
    if (values.help) {
      process.stdout.write(COMMAND_HELP[positionals[0] ?? ''] ?? HELP)
      return 0
    }
    if (values.version) {
      process.stdout.write(`${packageVersion()}\n`)
      return 0
    }
    const [command = 'demo', ...rest] = positionals
    if (rest.length > 0) throw new CommandLineError(`unexpected argument "${rest[0]}"`)
    if (command === 'demo') {
      const timeoutMs = timeoutOf(values.timeout)
      await demo({
        web: values.web,
        fresh: values.fresh,
        shared: storeChoice(values),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(values.framework === undefined ? {} : { framework: values.framework }),
      })
      return 0
    }
    if (command === 'mcp') {
      const { runMcpServer } = await import('./mcp-server.js')
      const timeoutMs = timeoutOf(values.timeout)
      const store = await openStore(storeChoice(values))
      try {
        await runMcpServer({
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          ...(store === undefined ? {} : { store }),
        })
      } finally {
        await store?.close()
      }
      return 0
    }
    if (command === 'console') {
      const { runConsole } = await import('./console.js')
      const port = portOf(values.port)
      await runConsole({
        ...storeChoice(values),
        ...(port === undefined ? {} : { port }),
        ...(values.token === undefined ? {} : { token: values.token }),
        write: (text) => void process.stdout.write(text),
      })
      return 0
    }
    if (command === 'notify') {
      const { runNotify } = await import('./notify.js')
      await runNotify({
        ...storeChoice(values),
        notifier: notifierOptions(values),
        write: (text) => void process.stdout.write(text),
      }).catch((error: unknown) => {
        // A secret or URL startNotifier refused is a mistake in the flags: one line, exit 2.
        if (isUserQuestionError(error) && error.code === 'INVALID_REQUEST') {
          const flag = NOTIFY_FLAGS[String(error.details?.field)]
          throw new UsageError(
            `${flag === undefined ? '' : `${flag}: `}${error.message.replace(/^startNotifier: /, '')}`,
          )
        }
        throw error
      })
      return 0
    }
    throw new CommandLineError(`unknown command "${command}": use demo, console, mcp or notify`)
  } catch (error: unknown) {
    const message = error instanceof Error ? error.message : String(error)
    process.stderr.write(`askseam: ${message}\n`)
    if (error instanceof CommandLineError) process.stderr.write(`\n${USAGE}`)
    if (
      !(error instanceof UsageError) &&
      error instanceof Error &&
      process.env.DEBUG !== undefined
    ) {
      process.stderr.write(`${error.stack ?? ''}\n`)
    }
    return error instanceof UsageError ? 2 : 1
  }
}

process.exitCode = await main(process.argv.slice(2))

/** The answer in a tool result, when the result is one (not a refusal the model reads). */
function answeredBefore(result: string): AskUserQuestionAnswer | undefined {
  try {
    const parsed = JSON.parse(result) as Partial<AskUserQuestionAnswer> | null
    return Array.isArray(parsed?.answers) ? (parsed as AskUserQuestionAnswer) : undefined
  } catch {
    return undefined
  }
}
