"""Drop-in replacements for other evaluation libraries' tool-call APIs.

Each submodule reproduces one library's scores exactly, in pure tooleval code,
so a project can switch by changing one import and keep its baselines:

- :mod:`tooleval.compat.ragas`: ragas 0.4.3 ``ToolCallAccuracy`` and
  ``ToolCallF1`` with their message and sample classes.

Nothing here imports the original library.
"""
