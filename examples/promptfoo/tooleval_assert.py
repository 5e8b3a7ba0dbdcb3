"""promptfoo `type: python` assertion: score the reply's tool calls with tooleval.

promptfoo imports this file and calls ``get_assert(output, context)``; see
promptfooconfig.yaml beside it and ``tooleval.integrations.promptfoo`` for what is read.
"""

from tooleval.integrations.promptfoo import get_assert

__all__ = ["get_assert"]
