"""Command-line interface: thin commands over the library, one module per verb."""
