// The body limit of this surface's requests, apart from its handler: the route table (lib/routes) imports it, and
// every route file imports the table, so anything heavier here would be bundled into every route.

/** The largest simulation request body read. */
export const SIMULATE_MAX_BYTES = 16 * 1024;
