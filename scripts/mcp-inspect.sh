#!/usr/bin/env bash
# The MCP Inspector's command line against the platform's tool server (`make mcp-inspect`). The current
# Inspector needs Node 22.7 or later, so it runs on Node 22 from the npm registry (the `node` package puts
# that binary first on its PATH), whatever Node runs the platform. Arguments are the Inspector's own;
# without any it lists the tools.
#
#   TOKEN=mdp_... bash scripts/mcp-inspect.sh --method tools/call --tool-name get_stock_quote --tool-arg symbol=ARAVALIHOU
set -euo pipefail

INSPECTOR_VERSION=2.12.0
NODE_MAJOR=22

: "${TOKEN:?set TOKEN to an API token (export TOKEN=\$(make -s token | tail -1))}"
export MCP_URL="${BASE_URL:-http://localhost:8080}/mcp"
export MCP_AUTH="Authorization: Bearer ${TOKEN}"
[ "$#" -gt 0 ] || set -- --method tools/list

# The header travels in the environment, not in this script's own command line.
exec npx --yes --loglevel=error -p "node@${NODE_MAJOR}" -p "@modelcontextprotocol/inspector@${INSPECTOR_VERSION}" \
  -c "mcp-inspector --cli \"\$MCP_URL\" --transport http --header \"\$MCP_AUTH\" $(printf '%q ' "$@")"
