"""Shared pieces of the project's Python tools (apps/sweep, apps/plot, apps/redblack3d/compare,
apps/cg3d/compare, apps/summa/compare-panels.py): the one command-line vocabulary (cli), the one launcher
setting (launcher, with the launch facts a tool records), the provenance schema the programs write and the
tools read (provenance), where a tool finds its programs (programs), what the mode-comparison tools share
(comparison) and the one figure style (figures, handed matplotlib by its callers). Standard library only."""
