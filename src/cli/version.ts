import { createRequire } from 'node:module'

/** The installed package's version, read from its package.json (dist/cli and src/cli both sit two levels below it). */
export function packageVersion(): string {
  try {
    const manifest = createRequire(import.meta.url)('../../package.json') as { version?: unknown }
    return typeof manifest.version === 'string' ? manifest.version : '0.0.0'
  } catch {
    return '0.0.0'
  }
}
