import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  UserQuestionError,
  UserQuestionErrorCodes,
  isUserQuestionError,
  toUserQuestionError,
} from '../../src/protocol/index.js'
import { selfThrowing, unknownCodes } from './hostile-values.js'

// Issue 10, items 1 and 5: a provider that rejected with a value whose
// property reads throw (that same value) made the error conversion throw
// inside the machine — an uncaught exception, exit 1 — and a UserQuestionError
// with a code outside the table reached the caller unchanged.

describe('toUserQuestionError and isUserQuestionError never throw', () => {
  it.each(Object.entries(selfThrowing))('%s', (_name, make) => {
    const value = make()
    expect(() => isUserQuestionError(value)).not.toThrow()
    expect(isUserQuestionError(value)).toBe(false)
    const converted = toUserQuestionError(value)
    expect(converted).toBeInstanceOf(UserQuestionError)
    expect(converted.code).toBe('PROVIDER_FAILED')
    expect(converted.cause).toBe(value)
    expect(typeof converted.message).toBe('string')
    expect(() => JSON.stringify(converted)).not.toThrow()
  })

  it('uses the fallback code for an unreadable value', () => {
    const value = selfThrowing['a look-alike ASK_CANCELLED whose message throws itself']!()
    expect(toUserQuestionError(value, 'ASK_ABORTED', 'the ask ended').code).toBe('ASK_ABORTED')
  })

  it('a look-alike whose details cannot be read is not adopted', () => {
    const value = {
      name: 'UserQuestionError',
      code: 'ASK_CANCELLED',
      message: 'dismissed',
      details: new Proxy(
        {},
        {
          ownKeys() {
            throw new TypeError('no keys')
          },
        },
      ),
    }
    expect(toUserQuestionError(value).code).toBe('PROVIDER_FAILED')
  })

  it('a readable look-alike keeps its code, message and a plain copy of its details', () => {
    const details = { reason: 'dismissed' }
    const value = { name: 'UserQuestionError', code: 'ASK_CANCELLED', message: 'gone', details }
    const adopted = toUserQuestionError(value)
    expect(adopted.code).toBe('ASK_CANCELLED')
    expect(adopted.message).toBe('gone')
    expect(adopted.details).toEqual(details)
    expect(adopted.details).not.toBe(details)
  })
})

describe('an unknown code is PROVIDER_FAILED with the original as cause (DESIGN §3)', () => {
  it.each(Object.entries(unknownCodes))('%s', (_name, make) => {
    const value = make()
    expect(isUserQuestionError(value)).toBe(false)
    const converted = toUserQuestionError(value)
    expect(converted.code).toBe('PROVIDER_FAILED')
    expect(Object.hasOwn(UserQuestionErrorCodes, converted.code)).toBe(true)
    expect(converted.cause).toBe(value)
    expect(converted.message).toContain('DIALOG_BROKE')
    expect(converted.message).toContain('the dialog broke')
    expect(converted.message).not.toContain('undefined')
    expect(converted.details).toEqual({ unknownCode: 'DIALOG_BROKE' })
  })
})

const fixture = fileURLToPath(new URL('./fixtures/reject-with-hostile.ts', import.meta.url))

describe('a provider that settles with a self-throwing value cannot crash the host', () => {
  it('every ask rejects with a coded error and the process exits 0 on its own', async () => {
    const { code, stdout, stderr } = await new Promise<{
      code: number | null
      stdout: string
      stderr: string
    }>((resolve) => {
      execFile(
        process.execPath,
        ['--unhandled-rejections=strict', '--import', 'tsx', fixture],
        { timeout: 30_000, killSignal: 'SIGKILL' },
        (error, out, err) =>
          resolve({
            code: error === null ? 0 : (error.code as number | null),
            stdout: out,
            stderr: err,
          }),
      )
    })
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    const cases = Object.keys({ ...selfThrowing, ...unknownCodes }).length
    expect(lines).toHaveLength(cases * 3)
    for (const line of lines) {
      expect(line).toMatchObject({ settled: 'rejected', name: 'UserQuestionError', pending: 0 })
      // Rejecting or throwing is PROVIDER_FAILED; resolving with an unreadable answer may
      // also fail while the promise adopts it (PROVIDER_FAILED) or be read as BAD_ANSWER.
      const allowed =
        line.mode === 'resolves' ? ['PROVIDER_FAILED', 'BAD_ANSWER'] : ['PROVIDER_FAILED']
      expect(allowed).toContain(line.code)
      expect(String(line.message)).not.toContain('undefined')
    }
  })
})
