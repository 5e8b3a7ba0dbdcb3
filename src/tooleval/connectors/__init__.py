"""Connectors: call the agent under test for each row and read what it did.

Three kinds share one shape (``call``/``acall`` -> :class:`AgentResponse`,
``describe()``, ``close``/``aclose``):

- :class:`HttpConnector`: any HTTP endpoint; reply read by JSONPath.
- :class:`CallableConnector`: a function in this process (sync or async).
- :class:`OpenAIChatConnector`: an OpenAI-compatible chat endpoint with tools.

Build one from a plan's ``connector:`` section with :func:`connector_from_config`.

>>> connector = CallableConnector(lambda text: {"output": text.upper(), "tools_called": []})
>>> connector.call("hi").output
'HI'
"""

from tooleval._extras import require

require("runs", "httpx", "aiohttp", "jsonpath")

from tooleval.connectors.config import connector_from_config, load_connector_file
from tooleval.connectors.http import HttpConnector
from tooleval.connectors.openai_chat import OpenAIChatConnector
from tooleval.connectors.paths import (
    PathExplanation,
    ResponseMapping,
    explain_path,
    objects_instead_of_names,
)
from tooleval.connectors.python import CallableConnector
from tooleval.connectors.response import AgentResponse, Connector
from tooleval.connectors.retry import RetryPolicy

__all__ = [
    "AgentResponse",
    "CallableConnector",
    "Connector",
    "HttpConnector",
    "OpenAIChatConnector",
    "PathExplanation",
    "ResponseMapping",
    "RetryPolicy",
    "connector_from_config",
    "explain_path",
    "load_connector_file",
    "objects_instead_of_names",
]
