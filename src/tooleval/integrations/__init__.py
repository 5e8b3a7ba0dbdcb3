"""Adapters that let other evaluation tools score with tooleval's metrics.

- :mod:`tooleval.integrations.inspect_ai`: an inspect_ai scorer (``pip install 'tooleval[inspect]'``);
- :mod:`tooleval.integrations.promptfoo`: the ``get_assert`` function of a promptfoo Python
  assertion.

Each reads the other tool's record of a conversation into a :class:`~tooleval.model.Sample`
and scores it with a registered metric; "could not score" stays unscored on their side too.
"""
