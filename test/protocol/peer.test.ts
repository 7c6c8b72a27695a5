import { describe, expect, it } from 'vitest'
import { importPeer } from '../../src/protocol/internal.js'

/** Loading an optional peer dependency (src/protocol/peer.ts): one line naming the package when it is missing. */

const missing = (code: string, message: string) => Object.assign(new Error(message), { code })
const failing = (error: unknown) => () => Promise.reject(error as Error)

describe('importPeer', () => {
  it('hands back the module it loads', async () => {
    const module = { default: 1 }
    expect(await importPeer('askseam/x', 'ws', async () => module)).toBe(module)
  })

  it.each([
    ['ERR_MODULE_NOT_FOUND', "Cannot find package 'ws' imported from /app/x.js"],
    ['MODULE_NOT_FOUND', 'Cannot find module "ws"'],
  ])('names the package when %s says the peer itself is missing', async (code, message) => {
    const cause = missing(code, message)
    const error = await importPeer('askseam/web', 'ws', failing(cause)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toBe('askseam/web needs the "ws" package: npm install ws')
    expect((error as Error).cause).toBe(cause)
  })

  it.each([
    [
      'a file missing inside an installed peer',
      missing('ERR_MODULE_NOT_FOUND', "Cannot find module '/app/node_modules/ws/lib/x.js'"),
    ],
    ['another peer missing', missing('ERR_MODULE_NOT_FOUND', "Cannot find package 'wsx'")],
    ['another failure', missing('ERR_REQUIRE_ESM', "require() of 'ws'")],
    ['an error without a code', new Error("Cannot find package 'ws'")],
    ['null', null],
  ])('lets %s through unchanged', async (_name, thrown) => {
    const error = await importPeer('askseam/web', 'ws', failing(thrown)).catch((e: unknown) => e)
    expect(error).toBe(thrown)
  })
})
