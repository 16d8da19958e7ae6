// The route table's answer for a request span (lib/tracing sits below lib/routes and is handed this lookup at start).
import { UNMATCHED_ROUTE, type RouteOfPath } from "@/lib/tracing";
import { routePolicy, type RouteEntry } from "./index";

/** A request path's route template (its entry's path) and class of work; "(unmatched)" for a path no entry names. */
export const routeOfPath: RouteOfPath = (path) => {
  const policy = routePolicy(path);
  return { route: "path" in policy ? (policy as RouteEntry).path : UNMATCHED_ROUTE, workClass: policy.workClass };
};
