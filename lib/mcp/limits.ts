// The body limit of this surface's requests, apart from its handler: the route table (lib/routes) imports it, and
// every route file imports the table, so anything heavier here would be bundled into every route.

/** The largest JSON-RPC body read (the MCP SDK's own limit for node:http). */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024;
