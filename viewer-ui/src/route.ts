/**
 * Where the viewer is, kept in the URL's fragment so that every view can be linked, reloaded and
 * reached with the back button: `#/report/0`, `#/dialogues?condition=a&q=sorry`,
 * `#/dialogue/0/<id>`, `#/compare?scenario=s&repeat=0`.
 */
import { useEffect, useState } from "preact/hooks";

export type Route =
  | { view: "report"; run: number }
  | { view: "dialogues"; params: URLSearchParams }
  | { view: "dialogue"; run: number; id: string }
  | { view: "compare"; params: URLSearchParams };

export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#/, "");
  const [path = "", search = ""] = text.split("?", 2) as [string, string?];
  const parts = path.split("/").filter((part) => part !== "");
  const params = new URLSearchParams(search);
  if (parts[0] === "dialogues") return { view: "dialogues", params };
  if (parts[0] === "compare") return { view: "compare", params };
  if (parts[0] === "dialogue" && parts.length >= 3 && /^\d+$/.test(parts[1] ?? "")) {
    return { view: "dialogue", run: Number(parts[1]), id: decodeURIComponent(parts.slice(2).join("/")) };
  }
  if (parts[0] === "report" && /^\d+$/.test(parts[1] ?? "")) return { view: "report", run: Number(parts[1]) };
  return { view: "report", run: 0 };
}

export function routeHref(route: Route): string {
  switch (route.view) {
    case "report":
      return `#/report/${route.run}`;
    case "dialogues":
      return `#/dialogues${route.params.size > 0 ? `?${route.params.toString()}` : ""}`;
    case "dialogue":
      return `#/dialogue/${route.run}/${encodeURIComponent(route.id)}`;
    case "compare":
      return `#/compare?${route.params.toString()}`;
  }
}

export function compareHref(scenario: string, repeat: number, runs?: readonly number[]): string {
  const params = new URLSearchParams({ scenario, repeat: String(repeat) });
  for (const run of runs ?? []) params.append("run", String(run));
  return routeHref({ view: "compare", params });
}

export function dialogueHref(run: number, id: string): string {
  return routeHref({ view: "dialogue", run, id });
}

/** Goes to a route; `replace` keeps the history entry (a filter being typed), else adds one. */
export function navigate(route: Route, replace = false): void {
  const href = routeHref(route);
  if (replace) history.replaceState(null, "", href);
  else history.pushState(null, "", href);
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    window.addEventListener("hashchange", update);
    return () => window.removeEventListener("hashchange", update);
  }, []);
  return route;
}
