import { randomBytes } from 'node:crypto'

/**
 * A new secret for a console's token or an MCP server's: 32 random bytes as
 * base64url (43 characters). Never one that begins with `-`, which a command
 * line would read as an option when it is passed back as `--token` or
 * `--secret`.
 */
export function newSecret(): string {
  for (;;) {
    const secret = randomBytes(32).toString('base64url')
    if (!secret.startsWith('-')) return secret
  }
}
