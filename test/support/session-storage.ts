/**
 * A tab's `sessionStorage` for page code run in Node: a map behind the three
 * methods the page uses. Installs it on `globalThis` and returns the map.
 */
export function installSessionStorage(): Map<string, string> {
  const storage = new Map<string, string>()
  Object.assign(globalThis, {
    sessionStorage: {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => void storage.set(key, value),
      removeItem: (key: string) => void storage.delete(key),
    },
  })
  return storage
}
