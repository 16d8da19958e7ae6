// The body limit of this surface's requests, apart from its handler: the route table (lib/routes) imports it, and
// every route file imports the table, so anything heavier here would be bundled into every route.

/** Bodies of these endpoints are small; 16 KiB leaves room for any assertion (CONTRACT.md §3). */
export const AUTH_BODY_LIMIT = 16 * 1024;
