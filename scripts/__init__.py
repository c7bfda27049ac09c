"""Developer scripts, run from the repository root: `python -m scripts.bench.<name>` (scripts/bench),
`python scripts/convert.py`, `python -m scripts.make_goldens` ... (a package, so that one script
imports another by its name, never through sys.path)."""
