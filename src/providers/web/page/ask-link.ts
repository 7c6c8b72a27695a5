/**
 * Links to one ask: `…/?token=T#ask=ID`, as askseam/notify's webhooks write
 * them (DESIGN §13). The page opened (or switched to) with such a fragment
 * selects that ask as soon as the host offers it, and scrolls its card in
 * the queue into view.
 */

/** The ask id a `#ask=ID` fragment names, or `undefined`. */
export function askInFragment(hash: string): string | undefined {
  const match = /^#ask=(.+)$/.exec(hash)
  if (match === null) return undefined
  try {
    return decodeURIComponent(match[1] as string)
  } catch {
    return undefined
  }
}

/**
 * Follows the page's `#ask=` fragment: `wanted` says whether an ask the host
 * offers is the one linked to; `select` is called with it when the fragment
 * changes to an ask the page already shows.
 */
export function followAskLinks(options: {
  shows: (askId: string) => boolean
  select: (askId: string) => void
}): { wanted(askId: string): boolean; reveal(queue: HTMLElement): void } {
  let linked = askInFragment(location.hash)
  window.addEventListener('hashchange', () => {
    linked = askInFragment(location.hash)
    if (linked !== undefined && options.shows(linked)) options.select(linked)
  })
  return {
    wanted: (askId) => askId === linked,
    reveal(queue) {
      queue.querySelector('[aria-current="true"]')?.scrollIntoView({ block: 'nearest' })
    },
  }
}
