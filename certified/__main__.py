"""``python -m certified`` runs the command line."""

from .cli import entry_point

entry_point()
