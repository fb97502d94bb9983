"""citecheck: check the claims in Markdown documentation against the sources they cite."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("citecheck")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

USER_AGENT = f"citecheck/{__version__} (+https://github.com/citecheck/citecheck)"
