"""Serving environments to the agent under test: tools tooleval executes and records itself.

=================  ===========================================================
module             holds
=================  ===========================================================
``sessions``       :class:`EnvironmentTools` (one fresh environment per row and attempt), :class:`EnvironmentSession` (calls executed and recorded)
``specs``          :func:`tool_specs`: an environment's tools as OpenAI tool specs
``connector``      :func:`connector_from_config`: a plan's connector, its environment served to the ``openai`` tool loop
``tau_bench``      tau-bench's airline and retail domains as environments (``tau_bench_airline``, ``tau_bench_retail``)
``bfcl``           BFCL multi-turn entries run live on BFCL's simulated APIs (``bfcl_multi_turn``): the openai connector turn by turn, BFCL's result files
``bindings``       :class:`~tooleval.serving.bindings.Episodes`: live episodes by token (one row and attempt each), calls with deadlines
``mcp_server``     the environment as an MCP server (the official ``mcp`` SDK): stdio, or bound per request
``http_app``       one HTTP server: MCP over streamable HTTP and JSON tool endpoints per episode (:class:`~tooleval.serving.http_app.EpisodeServer`)
``served``         :class:`~tooleval.serving.served.ServedConnector`: an ``http``/``python`` connector's ``serve`` key
=================  ===========================================================

See docs/episodes.md.
"""

from tooleval.serving.connector import connector_from_config
from tooleval.serving.sessions import EnvironmentSession, EnvironmentTools
from tooleval.serving.specs import tool_specs

__all__ = ["EnvironmentSession", "EnvironmentTools", "connector_from_config", "tool_specs"]
