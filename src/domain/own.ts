/**
 * Reading objects that come from outside (a program's arguments, a parsed request body, a file,
 * an answer) by their own properties only: a value inherited through the prototype chain (a
 * polluted Object.prototype, or an object whose prototype a `"__proto__"` key set) was never
 * given by whoever made the object, and is never read as if it were.
 */

/** The object's own property `key`, or undefined when it has none (whatever it inherits). */
export function ownValue<T extends object, K extends keyof T>(object: T, key: K): T[K] | undefined {
  return object !== null && typeof object === 'object' && Object.hasOwn(object, key)
    ? object[key]
    : undefined;
}

/**
 * The object's own properties among `keys`, in an object without a prototype: a key it lacks
 * reads as undefined whatever Object.prototype holds.
 */
export function ownFields<T extends object, K extends keyof T>(
  object: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const out = Object.create(null) as Partial<Pick<T, K>>;
  for (const key of keys) if (Object.hasOwn(object, key)) out[key] = object[key];
  return out;
}

/**
 * A copy of a JSON value whose objects have no prototype and hold only their own properties, so
 * that reading a field it lacks gives undefined whatever Object.prototype holds; a `"__proto__"`
 * key stays a plain field of the copy.
 */
export function ownCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ownCopy);
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value))
    Object.defineProperty(copy, key, {
      value: ownCopy((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
}
