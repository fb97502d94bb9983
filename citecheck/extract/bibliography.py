"""The bibliography a document names, for its pandoc citation keys (see docs/ARCHITECTURE.md and
`citecheck.extract.forms.pandoc`).

Where a document's keys are defined:
- `bibliography:` in its YAML front matter (pandoc): one file or a list, `.bib`/`.bibtex`
  (BibTeX, read with bibtexparser), `.json` (CSL JSON) or `.yaml`/`.yml` (CSL YAML, PyYAML);
- a manubot manuscript's folder (the document's own): `manual-references*.json|bib|yaml`, the
  `bibliography:` of its `metadata.yaml`, `citation-tags.tsv` (`tag<TAB>citation` rows), and the
  `[@key]: target` alias definitions of the folder's other Markdown files (manubot lets any
  content file hold them);
- `[@key]: target` definitions in the document itself (read by the parser, passed in);
- when the front matter names none, the BibTeX files the project configures, in the document's
  folder or one above it in the repository (MyST and Sphinx projects cite with roles,
  `citecheck.extract.forms.roles`): `bibtex_bibfiles` in a Jupyter Book `_config.yml` or a Sphinx
  `conf.py`, `bibfile` in a d2lbook `config.ini`, `bibliography` in a MyST `myst.yml`, the
  `scholar:` block's `source` and `bibliography` in a Jekyll `_config.yml` (Jekyll-Scholar's
  `{% cite key %}`), each path from that file's folder.
A path is resolved from the document's folder, then from the repository root (the nearest folder
above it holding `.git`), as pandoc run from either would; a path that leaves the repository
(through `..` or a symbolic link: `citecheck.safe_paths.link_escape`, for every file read here), a
file over `MAX_BYTES` and more than `MAX_FILES` files are refused (the key then stays unresolved,
and the reason says why). Files are read only when the document has keys that need them, and a
parsed file is remembered for the run by path, size and modification time (a manuscript's
sections share one bibliography).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from citecheck.extract.forms import pandoc
from citecheck.safe_paths import readable

MAX_BYTES = 5 * 1024 * 1024  # one bibliography file
MAX_FILES = 10  # bibliography files one document may name
MAX_SIBLINGS = 200  # Markdown files of the folder read for alias definitions
_ALIAS_LINE = re.compile(r"^\[@([^\]\s]{1,300})\]:[ \t]*(\S{1,2000})", re.MULTILINE)
_BIB_SUFFIXES = (".bib", ".bibtex", ".json", ".yaml", ".yml")


@dataclass
class Bibliography:
    """What a document's keys resolve to: aliases (key → target) and entries (key → URL, or
    None for an entry with no URL or identifier), each looked up by the key as written, then
    case-insensitively."""

    aliases: dict[str, str] = field(default_factory=dict)
    entries: dict[str, str | None] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)  # the bibliography files read
    problems: list[str] = field(default_factory=list)  # files named but not read, and why

    def alias(self, key: str) -> str | None:
        return _lookup(self.aliases, key)

    def entry(self, key: str) -> tuple[bool, str | None]:
        """(found, URL)."""
        if key in self.entries:
            return True, self.entries[key]
        low = key.casefold()
        for k, v in self.entries.items():
            if k.casefold() == low:
                return True, v
        return False, None


def _lookup(table: dict[str, str], key: str) -> str | None:
    if key in table:
        return table[key]
    low = key.casefold()
    for k, v in table.items():
        if k.casefold() == low:
            return v
    return None


def named_files(front_matter: str, key: str = "bibliography", *, nested: bool = False) -> list[str]:
    """The paths in a YAML front matter's `bibliography:` (a string, a flow list or a block list);
    `key`: another key's; `nested`: the key may be indented (under `project:` in a `myst.yml`)."""
    lines = front_matter.split("\n")
    for n, line in enumerate(lines):
        if nested:
            line = line.lstrip()
        if not line.startswith(f"{key}:"):
            continue
        value = line[len(key) + 1 :].strip()
        if value.startswith("["):
            return [_unquote(v) for v in value.strip("[]").split(",") if v.strip()][:MAX_FILES]
        if value:
            return [_unquote(value)]
        out: list[str] = []
        for item in lines[n + 1 :]:
            stripped = item.strip()
            if not stripped.startswith("- "):
                break
            out.append(_unquote(stripped[2:]))
        return out[:MAX_FILES]
    return []


def _unquote(value: str) -> str:
    value = value.split(" #", 1)[0].strip()
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'" else value


def load(
    folder: Path | None, front_matter: str, aliases: dict[str, str], *, siblings: bool, exclude: Path | None
) -> Bibliography:
    """The bibliography of a document in `folder` (None: no files are read) whose front matter
    is `front_matter` and whose own alias definitions are `aliases`. `siblings`: read the
    folder's manuscript files too (the document has keys that need them); `exclude`: the
    document's own file."""
    bib = Bibliography(aliases=dict(aliases))
    if folder is None:
        return bib
    root = _repository_root(folder)
    wanted = [(name, True) for name in named_files(front_matter)]
    if not wanted:
        for base, name in configured_files(folder, root):
            path = _find(name, base, root)
            wanted.append((str(path.relative_to(root)) if path is not None else name, True))
    if siblings:
        meta = next(
            (folder / m for m in ("metadata.yaml", "metadata.yml") if readable(folder / m, root)), None
        )
        if meta is not None and meta.stat().st_size <= MAX_BYTES:
            wanted += [(name, True) for name in named_files(_front(meta.read_text("utf-8", "replace")))]
        wanted += [
            (p.name, False) for p in sorted(folder.glob("manual-references*")) if p.suffix in _BIB_SUFFIXES
        ]
    for name, named in wanted[:MAX_FILES]:
        path = _find(name, folder, root)
        if path is None:
            if named:
                bib.problems.append(f"bibliography {name} not found in the repository")
            continue
        size = path.stat().st_size
        if size > MAX_BYTES:
            bib.problems.append(f"bibliography {name} is {size:,} bytes, over the {MAX_BYTES:,}-byte limit")
            continue
        entries, problem = _entries(str(path), size, path.stat().st_mtime_ns)
        if problem:
            bib.problems.append(f"bibliography {name}: {problem}")
        for k, v in entries.items():
            bib.entries.setdefault(k, v)
        bib.files.append(name)
    if siblings:
        tags = folder / "citation-tags.tsv"
        if readable(tags, root) and tags.stat().st_size <= MAX_BYTES:
            for line in tags.read_text("utf-8", "replace").splitlines()[1:]:
                tag, _, target = line.partition("\t")
                if tag.strip() and target.strip():
                    bib.aliases.setdefault(f"tag:{tag.strip()}", target.strip())
        read = 0
        for path in sorted(folder.glob("*.md")):
            if read >= MAX_SIBLINGS:
                break
            if (exclude is not None and path.resolve() == exclude.resolve()) or not readable(path, root):
                continue
            size = path.stat().st_size
            if size > MAX_BYTES:
                continue
            read += 1
            for k, v in _aliases(str(path), size, path.stat().st_mtime_ns).items():
                bib.aliases.setdefault(k, v)
    return bib


# Where MyST, Sphinx and d2lbook projects name their BibTeX files (see the module docstring).
_CONF_PY = re.compile(r"^bibtex_bibfiles\s*=\s*[\[(]([^\])]{0,2000})[\])]", re.MULTILINE)
_QUOTED = re.compile(r"""["']([^"'\n]{1,300})["']""")
_CONFIG_INI = re.compile(r"^\s*bibfile\s*=\s*(\S{1,300})", re.MULTILINE)
_CONFIG_BYTES = 256 * 1024


def configured_files(folder: Path, root: Path) -> list[tuple[Path, str]]:
    """(folder of the configuration file, path it names) for each BibTeX file a project's
    configuration names, from the document's folder up to the repository root (the nearest
    configuration wins)."""
    here = folder.resolve()
    for base in (here, *here.parents):
        found: list[tuple[Path, str]] = []
        for name in _CONFIG_FILES:
            path = base / name
            if not readable(path, root):
                continue
            stat = path.stat()
            if stat.st_size <= _CONFIG_BYTES:
                found += [(base, n) for n in _configured_names(str(path), stat.st_size, stat.st_mtime_ns)]
        if found or base == root:
            return found[:MAX_FILES]
    return []


_CONFIG_FILES = ("_config.yml", "_config.yaml", "myst.yml", "conf.py", "config.ini")


@lru_cache(maxsize=64)
def _configured_names(path: str, size: int, mtime_ns: int) -> tuple[str, ...]:
    """The BibTeX files one configuration file names (read once per run: a book's chapters share
    it; size and mtime make the cache key, as for `_entries`)."""
    text = Path(path).read_text("utf-8", "replace")
    name = Path(path).name
    if name == "conf.py":
        m = _CONF_PY.search(text)
        return tuple(_QUOTED.findall(m.group(1))) if m else ()
    if name == "config.ini":
        return tuple(_CONFIG_INI.findall(text))
    if name == "myst.yml":
        return tuple(named_files(text, nested=True))
    return (*named_files(text, "bibtex_bibfiles"), *_scholar_files(text))


_SCHOLAR = re.compile(r"^scholar:[ \t]*(?:#.*)?$", re.MULTILINE)


def _scholar_files(config: str) -> list[str]:
    """The BibTeX files of Jekyll-Scholar's `scholar:` block in a Jekyll `_config.yml`: its
    `bibliography` (default `references.bib`, ".bib" added to a name without a suffix, as
    Jekyll-Scholar does) in its `source` folder (default `./_bibliography`)."""
    m = _SCHOLAR.search(config)
    if m is None:
        return []
    block: list[str] = []
    for line in config[m.end() + 1 :].split("\n"):
        if line and not line[0].isspace() and not line.startswith("#"):
            break  # the next top-level key
        block.append(line)
    settings = "\n".join(block)
    source = (named_files(settings, "source", nested=True) or ["./_bibliography"])[0].rstrip("/")
    names = named_files(settings, "bibliography", nested=True) or ["references.bib"]
    return [f"{source}/{n if Path(n).suffix else n + '.bib'}" for n in names]


def _front(text: str) -> str:
    """A YAML file's text, or a Markdown file's front matter."""
    if text.startswith("---"):
        end = text.find("\n---", 3)
        return text[3:end] if end > 0 else ""
    return text


def _repository_root(folder: Path) -> Path:
    here = folder.resolve()
    for parent in (here, *here.parents):
        if (parent / ".git").exists():
            return parent
    return here


def _find(name: str, folder: Path, root: Path) -> Path | None:
    """The file `name` names, from the document's folder or the repository root, inside the
    repository (never an absolute path, never outside `root`)."""
    if not name or Path(name).is_absolute() or Path(name).suffix.lower() not in _BIB_SUFFIXES:
        return None
    for base in (folder, root):
        if readable(base / name, root):
            return (base / name).resolve()
    return None


@lru_cache(maxsize=32)
def _entries(path: str, size: int, mtime_ns: int) -> tuple[dict[str, str | None], str | None]:
    """key → URL of a bibliography file (size and mtime make the cache key: a changed file is
    read again)."""
    text = Path(path).read_text("utf-8", "replace")
    suffix = Path(path).suffix.lower()
    try:
        if suffix in (".bib", ".bibtex"):
            return _bibtex(text), None
        if suffix == ".json":
            return _csl(json.loads(text)), None
        import yaml  # CSL YAML only: PyYAML is imported when a document names such a file

        data = yaml.safe_load(text)
        if isinstance(data, dict):
            data = data.get("references", [])
        return _csl(data), None
    except Exception as exc:  # a malformed file: its keys stay unresolved, with this reason
        return {}, f"cannot be read ({type(exc).__name__})"


@lru_cache(maxsize=256)
def _aliases(path: str, size: int, mtime_ns: int) -> dict[str, str]:
    text = Path(path).read_text("utf-8", "replace")
    if "[@" not in text:
        return {}
    return {m.group(1): m.group(2) for m in _ALIAS_LINE.finditer(text)}


def _bibtex(text: str) -> dict[str, str | None]:
    import bibtexparser  # a maintained BibTeX parser; imported when a document names a .bib

    library = bibtexparser.parse_string(text)
    out: dict[str, str | None] = {}
    for entry in library.entries:
        fields = {f.key.lower(): str(f.value).strip().strip("{}") for f in entry.fields}
        arxiv = ""
        if (
            fields.get("archiveprefix", "").lower() == "arxiv"
            or fields.get("eprinttype", "").lower() == "arxiv"
        ):
            arxiv = fields.get("eprint", "")
        out[entry.key] = _entry_url(
            doi=fields.get("doi"),
            url=fields.get("url"),
            pmid=fields.get("pmid"),
            pmcid=fields.get("pmcid"),
            arxiv=arxiv,
            isbn=fields.get("isbn"),
        )
    return out


def _csl(items: object) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    if not isinstance(items, list):
        return out
    for item in items:
        if not isinstance(item, dict) or "id" not in item:
            continue
        out[str(item["id"])] = _entry_url(
            doi=item.get("DOI"),
            url=item.get("URL"),
            pmid=item.get("PMID"),
            pmcid=item.get("PMCID"),
            arxiv=None,
            isbn=item.get("ISBN"),
        )
    return out


def _entry_url(**ids: object) -> str | None:
    """An entry's source, the persistent identifier first (the DOI names the work; a URL may be a
    landing page that moves)."""
    for prefix in ("doi", "pmid", "pmcid", "arxiv", "url", "isbn"):
        value = ids.get(prefix)
        if not value or not isinstance(value, str | int):
            continue
        value = str(value).strip().split()[0] if str(value).strip() else ""
        if not value:
            continue
        found = pandoc.identifier_url(f"{prefix}:{value}")
        if found is not None:
            return found[2]
    return None
