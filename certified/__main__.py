"""``python -m certified`` runs the command line."""

from certified.cli import entry_point

entry_point()
