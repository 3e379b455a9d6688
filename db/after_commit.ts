// What runs once a transaction has committed (KV enqueues, cache drops), shared by both drivers.

/** Runs queued after-commit callbacks; a failing callback is logged, never undoes the commit. */
export async function runAfterCommit(callbacks: Array<() => void | Promise<void>>): Promise<void> {
  for (const cb of callbacks) {
    try {
      await cb();
    } catch (err) {
      console.error(
        JSON.stringify({ level: "error", msg: "after-commit callback failed", error: String(err) }),
      );
    }
  }
}
