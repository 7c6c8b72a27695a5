import { UserQuestionError } from '../../src/protocol/index.js'
import type { UserQuestionErrorCode } from '../../src/protocol/index.js'

/**
 * Values whose property reads throw — most of them throw the value itself,
 * so a handler that catches and reads the caught value throws again. Each is
 * built fresh per call: a test must not share a revoked Proxy or a patched
 * Error with another.
 */
export const selfThrowing: Readonly<Record<string, () => unknown>> = {
  'an Error whose message getter throws itself': () => {
    const error = new Error('placeholder')
    Object.defineProperty(error, 'message', {
      get() {
        throw error
      },
    })
    return error
  },
  'an object whose name getter throws itself': () => {
    const value = {}
    Object.defineProperty(value, 'name', {
      get() {
        throw value
      },
    })
    return value
  },
  'a Proxy whose getPrototypeOf and get throw the proxy': () => {
    const proxy: object = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw proxy
        },
        get() {
          throw proxy
        },
      },
    )
    return proxy
  },
  'a revoked Proxy': () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    return proxy
  },
  'a look-alike ASK_CANCELLED whose message throws itself': () => {
    const value = { name: 'UserQuestionError', code: 'ASK_CANCELLED' }
    Object.defineProperty(value, 'message', {
      get() {
        throw value
      },
    })
    return value
  },
  'a real UserQuestionError whose message getter throws itself': () => {
    const error = new UserQuestionError('placeholder', 'ASK_CANCELLED')
    Object.defineProperty(error, 'message', {
      get() {
        throw error
      },
    })
    return error
  },
  'a Proxy function whose every trap throws': () => {
    const proxy: object = new Proxy(() => undefined, {
      get() {
        throw proxy
      },
      getPrototypeOf() {
        throw proxy
      },
      has() {
        throw proxy
      },
    })
    return proxy
  },
}

/** `UserQuestionError`s with a code outside the table (DESIGN §3: PROVIDER_FAILED, kept as cause). */
export const unknownCodes: Readonly<Record<string, () => unknown>> = {
  'a real UserQuestionError built with a cast': () =>
    new UserQuestionError('the dialog broke', 'DIALOG_BROKE' as UserQuestionErrorCode),
  'a look-alike from another copy of the package': () => ({
    name: 'UserQuestionError',
    code: 'DIALOG_BROKE',
    message: 'the dialog broke',
  }),
}

/** An object whose every listed property is a getter that throws. */
export function throwingGetters(keys: readonly string[]): object {
  const value = {}
  for (const key of keys) {
    Object.defineProperty(value, key, {
      enumerable: true,
      get() {
        throw new TypeError(`reading ${key} throws`)
      },
    })
  }
  return value
}

/** A Proxy over `target` whose `get` throws for `key` (every key when omitted). */
export function proxyThrowingOn(target: object, key?: string): object {
  return new Proxy(target, {
    get(inner, property, receiver) {
      if (key === undefined || property === key) throw new TypeError(`get ${String(property)}`)
      return Reflect.get(inner, property, receiver) as unknown
    },
  })
}

/** A revoked Proxy: every operation on it throws a TypeError. */
export function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}
