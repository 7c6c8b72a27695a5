import { createHash, timingSafeEqual } from 'node:crypto'
import {
  MAX_RESPONDER_FIELD_LENGTH,
  MAX_RESPONDER_ROLES,
  isResponderId,
  isResponderText,
} from '../../vocabulary/index.js'
import type { Responder } from '../../vocabulary/index.js'

/*
 * The console's people (DESIGN §12): one token per person, kept only as its
 * SHA-256, so a users file leaks no token. Whoever presents a token is that
 * person on every surface: the page, the socket and the HTTP API.
 */

/** One person who may use the console, as `startWebConsole({ users })` and `--users FILE` take them. */
export interface WebConsoleUser {
  /** Stable id: what `answerers` names and the record keeps. */
  id: string
  name?: string
  /** What `answerers` entries `role:NAME` match. */
  roles?: string[]
  /** SHA-256 of the person's token, 64 hex digits (`printf %s "$TOKEN" | sha256sum`). */
  tokenSha256: string
}

/** A person as a token names them: a {@link Responder} without the surface, which the surface adds. */
export type ConsoleUser = Omit<Responder, 'via'>

const HEX_SHA256 = /^[0-9a-f]{64}$/i

/**
 * Reads a users list (from options or a parsed file): a copy of each person
 * and the digest of their token. Throws a `TypeError` whose message names the
 * first problem in one line: not a non-empty list, a blank or duplicate id, a
 * bad name or roles, or a `tokenSha256` that is not 64 hex digits (or is
 * another person's too: a token must name one person).
 */
export function readUsers(value: unknown): { user: ConsoleUser; digest: Buffer }[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new TypeError('users must be a non-empty list of { id, name?, roles?, tokenSha256 }')
  }
  const ids = new Map<string, number>()
  const digests = new Map<string, number>()
  return value.map((entry: unknown, index) => {
    const at = `users[${index}]`
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new TypeError(`${at} must be an object { id, name?, roles?, tokenSha256 }`)
    }
    const { id, name, roles, tokenSha256 } = entry as Record<string, unknown>
    if (!isResponderText(id)) {
      throw new TypeError(
        `${at}.id must be a non-blank string of at most ${MAX_RESPONDER_FIELD_LENGTH} characters`,
      )
    }
    if (!isResponderId(id)) {
      throw new TypeError(`${at}.id must not hold a NUL or an unpaired surrogate`)
    }
    const twin = ids.get(id)
    if (twin !== undefined) throw new TypeError(`${at}.id "${id}" is users[${twin}]'s id too`)
    ids.set(id, index)
    if (name !== undefined && !isResponderText(name)) {
      throw new TypeError(
        `${at}.name must be a non-blank string of at most ${MAX_RESPONDER_FIELD_LENGTH} characters`,
      )
    }
    if (
      roles !== undefined &&
      (!Array.isArray(roles) || roles.length > MAX_RESPONDER_ROLES || !roles.every(isResponderText))
    ) {
      throw new TypeError(
        `${at}.roles must be a list of at most ${MAX_RESPONDER_ROLES} non-blank strings`,
      )
    }
    if (typeof tokenSha256 !== 'string' || !HEX_SHA256.test(tokenSha256)) {
      throw new TypeError(
        `${at}.tokenSha256 must be the SHA-256 of the person's token: 64 hex digits`,
      )
    }
    const hex = tokenSha256.toLowerCase()
    const shared = digests.get(hex)
    if (shared !== undefined) {
      throw new TypeError(
        `${at}.tokenSha256 is users[${shared}]'s too: each person has their own token`,
      )
    }
    digests.set(hex, index)
    const user: ConsoleUser = { id }
    if (name !== undefined) user.name = name
    if (roles !== undefined) user.roles = [...(roles as string[])]
    return { user, digest: Buffer.from(hex, 'hex') }
  })
}

/** The SHA-256 of a presented token, the form a users list keeps. */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest()
}

/**
 * The person whose token digest matches `given`'s, compared in constant time
 * against every person (no early exit: how long the check takes says nothing
 * about who came close).
 */
export function findUser(
  people: readonly { user: ConsoleUser; digest: Buffer }[],
  given: string,
): ConsoleUser | undefined {
  const digest = tokenDigest(given)
  let found: ConsoleUser | undefined
  for (const person of people) {
    if (timingSafeEqual(digest, person.digest) && found === undefined) found = person.user
  }
  return found
}
