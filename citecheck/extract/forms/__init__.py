"""Citation forms with a syntax of their own, one module each; `citecheck.extract.citations`
registers them (see docs/ARCHITECTURE.md)."""
