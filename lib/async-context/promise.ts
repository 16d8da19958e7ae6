// On Node 20 every promise costs async-hook work and garbage (./index.ts), so the hot paths avoid async functions
// that only pass a promise on: each adds one promise of its own, and a returned promise one more to adopt it.

/** What an async function `work` would return, without the extra promises: work's own promise (or its value, settled), a synchronous throw as a rejection. */
export function promiseOf<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}
