/**
 * What a project's snapshot holds, loaded when first asked for. Concurrent callers share one load,
 * and a failed load is not kept: the next caller tries again.
 */

/** One value. */
export class Lazy<V> {
  private value?: Promise<V>;

  constructor(private readonly load: () => Promise<V>) {}

  get(): Promise<V> {
    let value = this.value;
    if (!value) {
      value = this.value = this.load();
      value.catch(() => {
        if (this.value === value) this.value = undefined;
      });
    }
    return value;
  }
}

/** Values by key, `max` of them at most: then it starts over (ids sent at random must not grow it without bound). */
export class LoadedByKey<K, V> {
  private readonly entries = new Map<K, Promise<V>>();

  constructor(private readonly max: number) {}

  get(key: K, load: (key: K) => Promise<V>): Promise<V> {
    let entry = this.entries.get(key);
    if (!entry) {
      if (this.entries.size >= this.max) this.entries.clear();
      entry = load(key);
      this.entries.set(key, entry);
      entry.catch(() => this.entries.delete(key));
    }
    return entry;
  }
}
