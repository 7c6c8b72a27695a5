/* The command line's flags: how they are parsed and each value checked (a mistake is one line and exit 2). */

import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { parseArgs } from 'node:util'
import type { StoreChoice } from './stores.js'

/** A failure the user caused or can fix: one line on stderr, no stack trace. */
export class UsageError extends Error {}

/** A mistake in the command line: one line saying what, then the usage. */
export class CommandLineError extends UsageError {}

const options = {
  timeout: { type: 'string' },
  keepalive: { type: 'string' },
  web: { type: 'boolean', default: false },
  framework: { type: 'string' },
  store: { type: 'string' },
  postgres: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  users: { type: 'string' },
  http: { type: 'string' },
  secret: { type: 'string' },
  host: { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  fresh: { type: 'boolean', default: false },
  webhook: { type: 'string' },
  'console-url': { type: 'string' },
  'notify-after': { type: 'string' },
  'remind-every': { type: 'string' },
  'max-reminders': { type: 'string' },
  'escalate-after': { type: 'string' },
  'max-in-flight': { type: 'string' },
  key: { type: 'string' },
  ask: { type: 'string' },
  agent: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean', default: false },
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

export function parse(argv: readonly string[]) {
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

/** The most seconds a flag takes: a longer timer would not hold (a delay is clamped to 2^31-1 ms). */
const MAX_SECONDS = 2_147_483

/**
 * How a number is written on the command line: decimal digits, with a
 * fraction where one is taken. `Number()` alone would also take `0x10`,
 * `1e3`, `0b1`, blanks around the digits, and `''` as 0.
 */
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/
const WHOLE = /^\d+$/

/**
 * A flag's whole number, from `least` (to `most`, when there is a most), or
 * one line saying what it takes.
 */
function wholeNumberOf(
  flag: string,
  value: string | undefined,
  least: number,
  most?: number,
): number | undefined {
  if (value === undefined) return undefined
  const number = Number(value)
  if (
    !WHOLE.test(value) ||
    !Number.isSafeInteger(number) ||
    number < least ||
    number > (most ?? Number.MAX_SAFE_INTEGER)
  ) {
    const bound = most === undefined ? `, ${least} or more` : ` from ${least} to ${most}`
    throw new UsageError(`${flag} takes a whole number${bound}, not "${value}"`)
  }
  return number
}

/**
 * A flag's number of seconds as milliseconds, or one line saying what it
 * takes. `least` is the smallest it takes: 0 (saying what 0 means, when it
 * means something) or anything above it. A tiny positive value is a very
 * short time, never 0.
 */
export function secondsOf(
  flag: string,
  value: string | undefined,
  least: { zero: string } | 'above-zero',
): number | undefined {
  if (value === undefined) return undefined
  const seconds = DECIMAL.test(value) ? Number(value) : Number.NaN
  const ok = least === 'above-zero' ? seconds > 0 : seconds >= 0
  if (!Number.isFinite(seconds) || !ok || seconds > MAX_SECONDS) {
    const bound =
      least === 'above-zero' ? 'greater than 0' : `from 0 (${least.zero}) to ${MAX_SECONDS}`
    throw new UsageError(`${flag} takes a number of seconds ${bound}, not "${value}"`)
  }
  return seconds === 0 ? 0 : Math.max(1, Math.round(seconds * 1000))
}

export const timeoutOf = (value: string | undefined) => secondsOf('--timeout', value, 'above-zero')

/** `--keepalive`: seconds between progress notifications; 0 turns them off. */
export const keepAliveOf = (value: string | undefined) =>
  secondsOf('--keepalive', value, { zero: 'no keepalive' })

/** The flag of each option of startNotifier that `askseam notify` sets. */
export const NOTIFY_FLAGS: Readonly<Record<string, string>> = {
  'webhook.url': '--webhook',
  'webhook.secret': '--secret',
  consoleUrl: '--console-url',
}

/** The notifier's options from `askseam notify`'s flags, each checked here or by `startNotifier`. */
export function notifierOptions(values: {
  webhook?: string | undefined
  secret?: string | undefined
  'console-url'?: string | undefined
  'notify-after'?: string | undefined
  'remind-every'?: string | undefined
  'max-reminders'?: string | undefined
  'escalate-after'?: string | undefined
  'max-in-flight'?: string | undefined
}) {
  if (values.webhook === undefined) throw new UsageError('askseam notify needs --webhook URL')
  if (values.secret === undefined) {
    throw new UsageError('askseam notify needs --secret S (whsec_ followed by base64)')
  }
  const notifyAfterMs = secondsOf('--notify-after', values['notify-after'], { zero: 'at once' })
  const remindEveryMs = secondsOf('--remind-every', values['remind-every'], 'above-zero')
  const escalateAfterMs = secondsOf('--escalate-after', values['escalate-after'], {
    zero: 'at once',
  })
  const maxReminders = wholeNumberOf('--max-reminders', values['max-reminders'], 0)
  const maxInFlight = wholeNumberOf('--max-in-flight', values['max-in-flight'], 1)
  return {
    webhook: { url: values.webhook, secret: values.secret },
    ...(values['console-url'] === undefined ? {} : { consoleUrl: values['console-url'] }),
    ...(notifyAfterMs === undefined ? {} : { notifyAfterMs }),
    ...(remindEveryMs === undefined ? {} : { remindEveryMs }),
    ...(maxReminders === undefined ? {} : { maxReminders }),
    ...(escalateAfterMs === undefined ? {} : { escalateAfterMs }),
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
  }
}

export function storeChoice(values: {
  store?: string | undefined
  postgres?: string | undefined
}): StoreChoice {
  return {
    ...(values.store === undefined ? {} : { sqlitePath: values.store }),
    ...(values.postgres === undefined ? {} : { postgresUrl: values.postgres }),
  }
}

export function portOf(value: string | undefined, flag = '--port'): number | undefined {
  if (value === undefined) return undefined
  const port = Number(value)
  if (!WHOLE.test(value) || port < 1 || port > 65_535) {
    throw new UsageError(`${flag} takes a port number from 1 to 65535, not "${value}"`)
  }
  return port
}

/**
 * `--users FILE`: the file's JSON, unchecked beyond being JSON (the console
 * checks the people in it and names the first mistake). A file that cannot
 * be read or is not JSON is one line, exit 2.
 */
export function usersFileOf(path: string | undefined): unknown {
  if (path === undefined) return undefined
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error: unknown) {
    const code = (error as { code?: unknown } | null)?.code
    throw new UsageError(
      `--users ${path}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${String(code ?? error)})`}`,
    )
  }
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new UsageError(
      `--users ${path}: not JSON (expected [{ "id", "name"?, "roles"?, "tokenSha256" }])`,
    )
  }
}

/** `--secret S` (or ASKSEAM_MCP_SECRET): the requestState key every instance of a fleet shares. */
export function secretOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  if (Buffer.byteLength(value, 'utf8') < 32) {
    throw new UsageError(
      '--secret takes at least 32 bytes (every instance serving the same clients gives the same one)',
    )
  }
  return value
}

/** `--host ADDRESS`: the address `askseam mcp --http` listens on, an IP literal. */
export function bindAddressOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  if (isIP(value) === 0) {
    throw new UsageError(
      `--host takes the IP address to listen on (0.0.0.0 for every interface), not "${value}"`,
    )
  }
  return value
}

/** `--allow-host NAME`, once per name: a Host name (no scheme, no port) `askseam mcp --http` serves. */
export function allowedHostsOf(values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined
  for (const value of values) {
    if (
      !/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(
        value,
      ) &&
      !/^\[[0-9a-f:.]+\]$/i.test(value)
    ) {
      throw new UsageError(
        `--allow-host takes a host name as clients send it, without scheme or port, not "${value}"`,
      )
    }
  }
  return [...values]
}

/** The most asks `askseam history --limit` takes (the store contract's own bound). */
export const MAX_LIMIT = 1_000

/** `--limit N`: a whole number from 1 to {@link MAX_LIMIT}, or one line saying so. */
export const limitOf = (value: string | undefined): number | undefined =>
  wholeNumberOf('--limit', value, 1, MAX_LIMIT)
