"""Shared pieces of the project's Python tools (apps/sweep, apps/plot, apps/redblack3d/compare,
apps/summa/compare-panels.py): the one command-line vocabulary (cli), the one launcher setting (launcher,
with the launch facts a tool records) and the provenance schema the programs write and the tools read
(provenance). Standard library only."""
