import { useEffect, useState } from "preact/hooks";

export type Loaded<T> = { state: "loading" } | { state: "error"; message: string } | { state: "ready"; value: T };

/** Loads `load()` whenever `key` changes; an answer to an older key is dropped. */
export function useFetch<T>(key: string, load: () => Promise<T>): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: "loading" });
  useEffect(() => {
    let current = true;
    setLoaded({ state: "loading" });
    load().then(
      (value) => current && setLoaded({ state: "ready", value }),
      (error: unknown) => current && setLoaded({ state: "error", message: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      current = false;
    };
    // `key` names everything `load` reads.
  }, [key]);
  return loaded;
}
