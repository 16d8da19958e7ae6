// The body limit of this surface's requests, apart from its handler: the route table (lib/routes) imports it, and
// every route file imports the table, so anything heavier here would be bundled into every route.

/** The largest A2A JSON-RPC body read. */
export const A2A_BODY_LIMIT = 65_536;
