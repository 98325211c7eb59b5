import type { Endpoint } from '../endpoint';

/** Every public endpoint the mcp service answers. */
export const MCP_API: readonly Endpoint[] = [];
