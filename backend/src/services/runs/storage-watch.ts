// Tells a run's turn when one of its ports (the checkpoint saver, the result ledger) met an
// error, so that a turn cut short by a full disk or a locked database is not recorded as the
// run's failure. The port itself behaves exactly as before: every error still goes to its caller.

/** `target` with every method that returns a promise reporting its rejection to `seen` first. */
export function watchStorage<T extends object>(target: T, seen: (error: unknown) => void): T {
  return new Proxy(target, {
    get: (object, property) => {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(object, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          seen(error);
          throw error;
        });
      };
    },
  });
}
