import { createUserQuestions, isUserQuestionError } from '../protocol/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  UserQuestions,
} from '../protocol/index.js'
import { inScriptOrder, runDemo, wrapped } from './demo.js'
import { demoKind, openDemoStore, openStore } from './stores.js'
// The style file alone: the terminal's entry point would load its peer `marked`.
import { createStyle, supportsColor } from '../providers/terminal/style.js'
import type { StoreChoice } from './stores.js'
import type { AskTool } from './demo.js'
import { COMMAND_HELP, HELP, USAGE } from './help.js'
import {
  CommandLineError,
  UsageError,
  usersFileOf,
  allowedHostsOf,
  bindAddressOf,
  NOTIFY_FLAGS,
  keepAliveOf,
  limitOf,
  notifierOptions,
  parse,
  portOf,
  secretOf,
  storeChoice,
  timeoutOf,
} from './flags.js'
import { packageVersion } from './version.js'

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
  // A line of its own broken between words on a terminal, `lead` columns in; as it is elsewhere.
  const fitted = (text: string, lead: number) =>
    process.stdout.columns === undefined ? text : wrapped(text, process.stdout.columns, lead)
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
    const note = kept.resumed
      ? `${style.accent('↻')} ${fitted(kept.note, 3)}`
      : style.dim(fitted(kept.note, 1))
    write(`\n ${note}\n`)
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
    write(`\n ${style.dim(fitted(note, 1))}\n`),
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
      // A demo run to its end tells the open tab its session is over; a stopped one resumes.
      await console.close({ sessionEnded: completed })
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
      const timeoutMs = timeoutOf(values.timeout)
      const keepAliveMs = keepAliveOf(values.keepalive)
      const httpPort = values.http === undefined ? undefined : portOf(values.http, '--http')
      const host = bindAddressOf(values.host)
      const allowedHosts = allowedHostsOf(values['allow-host'])
      if (httpPort === undefined && (host !== undefined || allowedHosts !== undefined)) {
        throw new UsageError('--host and --allow-host go with --http PORT')
      }
      const secret = secretOf(values.secret ?? process.env.ASKSEAM_MCP_SECRET)
      const store = await openStore(storeChoice(values))
      try {
        const served = {
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          ...(keepAliveMs === undefined ? {} : { keepAliveMs }),
          ...(store === undefined ? {} : { store }),
          ...(secret === undefined ? {} : { secret }),
        }
        if (httpPort === undefined) {
          const { runMcpStdio } = await import('./mcp-modern.js')
          await runMcpStdio(served)
        } else {
          const { runMcpHttp } = await import('./mcp-http.js')
          await runMcpHttp({
            ...served,
            port: httpPort,
            ...(host === undefined ? {} : { host }),
            ...(allowedHosts === undefined ? {} : { allowedHosts }),
          })
        }
      } finally {
        await store?.close()
      }
      return 0
    }
    if (command === 'console') {
      const { runConsole } = await import('./console.js')
      const port = portOf(values.port)
      if (values.token !== undefined && values.users !== undefined) {
        throw new UsageError(
          '--token and --users exclude each other: with --users, each person has their own token',
        )
      }
      const users = usersFileOf(values.users)
      await runConsole({
        ...storeChoice(values),
        ...(port === undefined ? {} : { port }),
        ...(values.token === undefined ? {} : { token: values.token }),
        ...(values.users === undefined ? {} : { users: { path: values.users, list: users } }),
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
    if (command === 'history') {
      const limit = limitOf(values.limit)
      const { runHistory } = await import('./history.js')
      await runHistory({
        ...storeChoice(values),
        query: {
          ...(values.ask === undefined ? {} : { askId: values.ask }),
          ...(values.key === undefined ? {} : { key: values.key }),
          ...(values.agent === undefined ? {} : { agentId: values.agent }),
          ...(limit === undefined ? {} : { limit }),
        },
        json: values.json,
        write: (text) => void process.stdout.write(text),
      })
      return 0
    }
    throw new CommandLineError(
      `unknown command "${command}": use demo, console, mcp, notify or history`,
    )
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
