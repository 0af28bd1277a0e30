// A promise raced against a timer: for calls to shared services (Redis) whose own timeouts are
// longer than what a request on the hot path may wait. The timer is always cleared.

/** Resolves as `work` does, or rejects with `onTimeout()` once `ms` have passed first. */
export async function withinDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
