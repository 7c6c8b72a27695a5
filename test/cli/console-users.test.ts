import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { askseam } from '../support/cli.js'

const directory = mkdtempSync(join(tmpdir(), 'askseam-users-'))

afterAll(() => rmSync(directory, { recursive: true, force: true }))

const sha = (token: string) => createHash('sha256').update(token).digest('hex')
let files = 0

/** Writes `text` to a new file of the test directory; returns its path. */
function usersFile(text: string): string {
  const path = join(directory, `users-${++files}.json`)
  writeFileSync(path, text)
  return path
}

const ana = { id: 'ana', name: 'Ana', roles: ['ops'], tokenSha256: sha('ana-token') }

describe.concurrent('askseam console --users FILE', { timeout: 90_000 }, () => {
  it.each([
    ['missing', () => join(directory, 'nobody.json'), /: no such file$/],
    ['not JSON', () => usersFile('[{ id: ana }'), /: not JSON /],
    ['not a list', () => usersFile('{"id":"ana"}'), /: users must be a non-empty list/],
    [
      'a duplicate id',
      () => usersFile(JSON.stringify([ana, { id: 'ana', tokenSha256: sha('other') }])),
      /: users\[1\]\.id "ana" is users\[0\]'s id too$/,
    ],
    [
      'a blank id',
      () => usersFile(JSON.stringify([ana, { id: '  ', tokenSha256: sha('other') }])),
      /: users\[1\]\.id must be a non-blank string/,
    ],
    [
      'an id with a NUL (no store keeps it)',
      () => usersFile(JSON.stringify([ana, { id: 'bo\u0000b', tokenSha256: sha('other') }])),
      /: users\[1\]\.id must not hold a NUL or an unpaired surrogate$/,
    ],
    [
      'a tokenSha256 that is not 64 hex digits',
      () => usersFile(JSON.stringify([{ ...ana, tokenSha256: 'ana-token' }])),
      /: users\[0\]\.tokenSha256 must be the SHA-256 of the person's token: 64 hex digits$/,
    ],
    [
      'a tokenSha256 of 63 hex digits',
      () => usersFile(JSON.stringify([{ ...ana, tokenSha256: sha('x').slice(1) }])),
      /: users\[0\]\.tokenSha256 must be/,
    ],
  ])('a users file that is %s: one line naming it, exit 2', async (_, path, problem) => {
    const file = path()
    const store = join(directory, `store-${++files}.sqlite`)
    const { code, stdout, stderr } = await askseam(['console', '--store', store, '--users', file])
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' })
    const lines = stderr.split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toBe('')
    expect(lines[0]).toMatch(
      new RegExp(`^askseam: --users ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    )
    expect(lines[0]).toMatch(problem)
  })

  it('--token with --users: one line, exit 2', async () => {
    const file = usersFile(JSON.stringify([ana]))
    const { code, stderr } = await askseam([
      'console',
      '--store',
      join(directory, 'token.sqlite'),
      '--users',
      file,
      '--token',
      'correct horse battery staple',
    ])
    expect(code).toBe(2)
    expect(stderr).toBe(
      'askseam: --token and --users exclude each other: with --users, each person has their own token\n',
    )
  })
})
