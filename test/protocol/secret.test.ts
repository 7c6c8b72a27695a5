import { describe, expect, it } from 'vitest'
import { newSecret } from '../../src/protocol/secret.js'

describe('newSecret: a console token or MCP secret askseam makes itself', () => {
  it('is 43 base64url characters, never one that a command line reads as an option', () => {
    // One in 64 random base64url strings begins with "-": 2,000 of them without the rule
    // would hold about 31 such, and none at all with odds of about 1 in 10^13.
    const secrets = Array.from({ length: 2_000 }, newSecret)
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/)
    }
    expect(new Set(secrets).size).toBe(secrets.length)
  })
})
