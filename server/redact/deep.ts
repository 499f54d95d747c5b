// Deep redaction of response values: every string VALUE of arrays and plain objects, keys kept.

type Container = Record<string, unknown> | unknown[];

function isPlainContainer(value: unknown): value is Container {
  if (Array.isArray(value)) return true;
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function emptyLike(value: Container): Container {
  if (Array.isArray(value)) return new Array<unknown>(value.length);
  return Object.getPrototypeOf(value) === null ? Object.create(null) : {};
}

function assign(target: Container, key: string | number, value: unknown): void {
  // defineProperty, because `target["__proto__"] = x` would set the prototype instead of copying a JSON key.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Record<string | number, unknown>)[key] = value;
}

/**
 * A deep copy of `value` with `redactString` applied to every string VALUE; object keys are kept as they are (they
 * are field names and ids, and rewriting them could merge two keys). Arrays and plain objects (prototype Object
 * or null) are copied; anything else (numbers, Dates, Buffers, Maps, class instances, functions) is returned as
 * the same reference. Iterative, so depth cannot overflow the stack; a shared or cyclic sub-object is copied once
 * and the copy keeps the same sharing (a cycle stays a cycle rather than recursing forever).
 */
export function deepMap<T>(value: T, redactString: (text: string) => string): T {
  if (typeof value === 'string') return redactString(value) as T;
  if (!isPlainContainer(value)) return value;
  const copies = new Map<object, Container>();
  const root = emptyLike(value);
  copies.set(value, root);
  const pending: Array<[Container, Container]> = [[value, root]];
  for (let job = pending.pop(); job !== undefined; job = pending.pop()) {
    const [source, target] = job;
    const keys: Array<string | number> = Array.isArray(source) ? Array.from(source, (_, i) => i) : Object.keys(source);
    for (const key of keys) {
      const item = (source as Record<string | number, unknown>)[key];
      if (typeof item === 'string') assign(target, key, redactString(item));
      else if (isPlainContainer(item)) {
        let copy = copies.get(item);
        if (copy === undefined) {
          copy = emptyLike(item);
          copies.set(item, copy);
          pending.push([item, copy]);
        }
        assign(target, key, copy);
      } else assign(target, key, item);
    }
  }
  return root as T;
}
