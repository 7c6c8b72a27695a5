import { importPeer } from '../../protocol/index.js'

/**
 * `@inquirer/core`, the one place askseam/terminal loads it: without the
 * package installed, importing the entry point throws one line naming it.
 * Everything else takes it from here (and its types through `import type`),
 * since a static import anywhere in the entry's graph would fail first, with
 * Node's resolution error.
 */
export const inquirer = await importPeer(
  'askseam/terminal',
  '@inquirer/core',
  () => import('@inquirer/core'),
)
