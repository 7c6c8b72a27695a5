import { UserQuestionError } from '../protocol/index.js'
import type { AskStore, NotificationLedger } from '../protocol/internal.js'
import { clampDelay } from '../machines/index.js'

/** A clock as XState's `clock` option takes it, that also tells the time (XState's `SimulatedClock` is one). */
export interface NotifierClock {
  /** Calls `fn` after `timeout` milliseconds of this clock; returns a handle for `clearTimeout`. */
  setTimeout(fn: (...args: unknown[]) => void, timeout: number): unknown
  /** Cancels a call `setTimeout` scheduled. */
  clearTimeout(id: unknown): void
  /** Epoch milliseconds. */
  now(): number
}

/** Options of {@link startNotifier} (DESIGN §13). */
export interface NotifierOptions {
  /** The store whose asks are announced; it must keep a notification ledger (askseam's memory, SQLite and Postgres stores do). */
  store: AskStore
  /**
   * Where every event is posted, and the secret it is signed with, as the
   * Standard Webhooks specification writes it: `whsec_` + base64. The URL is
   * http or https with no `user:password@` (fetch cannot post to one); a
   * token of the receiver's own goes in its path or query.
   */
  webhook: { url: string; secret: string }
  /** The web console's address: each event links to `${consoleUrl}#ask=${askId}`. */
  consoleUrl?: string
  /** How long after an ask is admitted `ask.pending` is sent. @default 0 */
  notifyAfterMs?: number
  /** How often `ask.reminder` follows `ask.pending` while the ask waits. @default none: no reminders */
  remindEveryMs?: number
  /** At most this many reminders per ask. @default 3 */
  maxReminders?: number
  /** How long after admission one `ask.escalated` is sent if the ask still waits. @default none */
  escalateAfterMs?: number
  /** How long one delivery try may take before it counts as failed. @default 10000 */
  attemptTimeoutMs?: number
  /**
   * How long an event that was never delivered keeps being retried, from
   * its first try. @default 86400000 (a day)
   */
  giveUpAfterMs?: number
  /**
   * At most this many deliveries are under way at once (a try being sent,
   * and the store read just before it); the others wait for a free slot,
   * first due first sent. Keeps a slow receiver from being sent more than
   * it can take. @default 16
   */
  maxInFlight?: number
  /**
   * The clock the notifier's timers run on and its times are read from;
   * tests pass XState's `SimulatedClock` (set to the present first).
   * @default the system clock
   */
  clock?: NotifierClock
}

/** {@link NotifierOptions} checked, with their defaults. */
export interface ResolvedNotifierOptions {
  store: AskStore
  ledger: NotificationLedger
  url: string
  /** The secret's key bytes (the base64 after `whsec_`). */
  key: Buffer
  consoleUrl: string | undefined
  notifyAfterMs: number
  remindEveryMs: number | undefined
  maxReminders: number
  escalateAfterMs: number | undefined
  attemptTimeoutMs: number
  giveUpAfterMs: number
  maxInFlight: number
  clock: NotifierClock | undefined
}

const invalid = (field: string, rule: string, message: string): UserQuestionError =>
  new UserQuestionError(`startNotifier: ${message}`, 'INVALID_REQUEST', {
    details: { field, rule },
  })

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** The key bytes of a Standard Webhooks secret, or `undefined` when it is not one. */
export function secretKey(secret: unknown): Buffer | undefined {
  if (typeof secret !== 'string' || !secret.startsWith('whsec_')) return undefined
  const encoded = secret.slice('whsec_'.length)
  if (encoded === '' || !BASE64.test(encoded)) return undefined
  return Buffer.from(encoded, 'base64')
}

/**
 * `value` as a message may echo it: a user name and password written in it
 * (`user:pass@`) become `…@`, so a refusal never prints a password.
 */
function withoutCredentials(value: unknown): string {
  return (
    JSON.stringify(
      typeof value === 'string' ? value.replace(/^([^:/?#]+:\/\/)[^/?#]*@/, '$1…@') : value,
    ) ?? String(value)
  )
}

/** What to do instead of writing credentials in each URL, by the option that names it. */
const INSTEAD_OF_CREDENTIALS = {
  'webhook.url':
    "fetch refuses to post to such a URL. A receiver checks the webhook-signature header to know the event is askseam's; askseam sends no headers of your choosing, so a token of the receiver's own goes in the URL's path or query",
  consoleUrl:
    "it would be sent in every event's link. The console takes its token in the URL's query (?token=)",
} as const

/**
 * An http(s) URL, or a coded refusal. One with a user name or password in it
 * is refused too: Node's `fetch` refuses every request to it (a webhook would
 * be retried for a day and never sent), and a password in a URL is printed
 * wherever the URL is.
 */
function httpUrl(value: unknown, field: keyof typeof INSTEAD_OF_CREDENTIALS): string {
  let parsed: URL | undefined
  try {
    parsed = typeof value === 'string' ? new URL(value) : undefined
  } catch {
    parsed = undefined
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw invalid(
      field,
      'url',
      `${field} must be an http or https URL, not ${withoutCredentials(value)}`,
    )
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw invalid(
      field,
      'credentials',
      `${field} must not carry a user name or password (user:password@): ${INSTEAD_OF_CREDENTIALS[field]}`,
    )
  }
  return parsed.href
}

function duration(
  value: unknown,
  field: string,
  rule: 'non-negative' | 'positive',
): number | undefined {
  if (value === undefined) return undefined
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (rule === 'positive' ? value > 0 : value >= 0)
  if (!ok) {
    const what = rule === 'positive' ? 'greater than 0' : '0 or more'
    throw invalid(
      field,
      rule,
      `${field} must be a number of milliseconds ${what}, not ${String(value)}`,
    )
  }
  return clampDelay(value)
}

/**
 * Checks every option, throwing a {@link UserQuestionError} coded
 * `INVALID_REQUEST` (with `details.field` and `details.rule`) for the first
 * that is wrong: nothing starts with a secret, a URL or a duration it
 * cannot use.
 */
export function resolveOptions(options: NotifierOptions): ResolvedNotifierOptions {
  const ledger = options?.store?.notifications
  if (ledger === undefined) {
    throw invalid(
      'store',
      'notifications',
      'the store keeps no notification ledger (AskStore.notifications); use the memory, SQLite or Postgres store of askseam',
    )
  }
  const url = httpUrl(options.webhook?.url, 'webhook.url')
  const key = secretKey(options.webhook?.secret)
  if (key === undefined) {
    throw invalid(
      'webhook.secret',
      'whsec',
      "webhook.secret must be a Standard Webhooks secret: 'whsec_' followed by base64",
    )
  }
  const maxReminders = options.maxReminders ?? 3
  if (!Number.isSafeInteger(maxReminders) || maxReminders < 0) {
    throw invalid(
      'maxReminders',
      'non-negative',
      `maxReminders must be a whole number, 0 or more, not ${String(maxReminders)}`,
    )
  }
  const maxInFlight = options.maxInFlight ?? 16
  if (!Number.isSafeInteger(maxInFlight) || maxInFlight < 1) {
    throw invalid(
      'maxInFlight',
      'positive',
      `maxInFlight must be a whole number, 1 or more, not ${String(maxInFlight)}`,
    )
  }
  return {
    store: options.store,
    ledger,
    url,
    key,
    consoleUrl:
      options.consoleUrl === undefined ? undefined : httpUrl(options.consoleUrl, 'consoleUrl'),
    notifyAfterMs: duration(options.notifyAfterMs, 'notifyAfterMs', 'non-negative') ?? 0,
    remindEveryMs: duration(options.remindEveryMs, 'remindEveryMs', 'positive'),
    maxReminders,
    escalateAfterMs: duration(options.escalateAfterMs, 'escalateAfterMs', 'non-negative'),
    attemptTimeoutMs: duration(options.attemptTimeoutMs, 'attemptTimeoutMs', 'positive') ?? 10_000,
    giveUpAfterMs: duration(options.giveUpAfterMs, 'giveUpAfterMs', 'positive') ?? 86_400_000,
    maxInFlight,
    clock: options.clock,
  }
}
