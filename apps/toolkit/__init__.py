"""Shared pieces of the project's Python tools (apps/sweep, apps/plot, apps/redblack3d/compare,
apps/summa/compare-panels.py): the one command-line vocabulary (cli), the one launcher setting
(launcher) and the provenance fields of every record (provenance). Standard library only."""
