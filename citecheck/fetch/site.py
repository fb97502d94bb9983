"""Where an internal link leads: a file of the checkout, the published site, or nowhere known.

Extraction gives a link to the project's own pages a citation of kind `internal` holding its
target as written (`citecheck.extract.resolve.link_citation`, `extract.document`'s in-page
anchors); the checkout and the settings are needed to follow it, and `resolve_internal` does,
in this order:

1. **a file of the checkout.** A relative link ("../reference/config.md#timeout",
   "sp800-63a.html") from the citing file's folder; a site path ("/rules/x",
   "/settings#allowbuilds") under each `site-root` folder in turn (none set: the checkout's
   root, as GitHub renders a README's "/docs/x.md"). A target names a file as the generators
   do: as written; with `.md`, `.mdx`, `.markdown` or `.ipynb` added, or in place of `.html`; a
   folder's `index.md`, `README.md` or `_index.md`; and else a page's route, read from the
   checkout once (`Routes`): its path with Docusaurus's number prefixes ("04-hooks.mdx" →
   "hooks") and a blog's date ("2024-08-21-dotnet-sdk-v2.md" → "dotnet-sdk-v2",
   "2024/08/21/dotnet-sdk-v2") left out, and the `slug`, `permalink`, `url` and `id` of its front
   matter (Docusaurus, Jekyll, Hugo, MkDocs). A relative link no file answers is tried from the
   citing page's route too. A Jekyll page assembled from its sections (`{% include_relative
   s.md %}`) is one page: an anchor is looked for in all its parts, and a link to it names the
   part that holds the anchor.
   The file is a page only if it is Markdown, a Jupyter notebook (its Markdown cells), HTML,
   PDF or plain text (`PAGE_SUFFIXES`): a link to a script, a data file or a folder without an
   index page is listed as not resolved, never read (a link to an image or an archive is no
   citation at all: `extract.urls.internal_target`).
   An anchor names a part of the page (`citecheck.extract.anchors`): the source is that part,
   "docs/reference/config.md#timeout"; an anchor of a reference-list entry cites the entry's
   URL, as `[N]` does; one the page does not declare leaves the whole page (an in-page one,
   which would name the sentence's own file, is not resolved, unless it is a book's label
   that one other page declares: MyST's and Sphinx's labels belong to the whole book), and one
   naming the section the sentence stands in is not resolved either: a sentence is not its own
   source.
2. **the published site**, when `site-url` names it: the link made absolute from the citing
   page's route (a site path from the site's root), then fetched like any source, under the
   guard and the allowlist. With `site-url`, a web link to the site itself is followed to the
   checkout's file first, so a pull request is checked against its own pages.
3. **not resolved**: the claim is listed as not verified, with the reason ("internal link not
   resolved: set site-root or site-url …"); `not-verified` is not in the default fail-on.

Every read goes through the workspace rules (`safe_paths.read_in_tree`): no path out of the
checkout, nothing under `.git` or `node_modules`, no symbolic link out of the tree; a file
is read up to `max_source_bytes`, as a fetched page is. The pages themselves are read by
`citecheck.fetch.local`.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urljoin, urlsplit

from citecheck.errors import UnsafePathError
from citecheck.extract import anchors
from citecheck.extract.document import anchor_sources
from citecheck.models import Citation, CitationKind, Claim, ResolveStatus, SelectedFile
from citecheck.safe_paths import read_in_tree
from citecheck.select import walk_files

MARKDOWN_PAGES = (".md", ".mdx", ".markdown")
# A Jupyter notebook is a page of a Jupyter Book, an nbsphinx or mkdocs-jupyter site: its
# Markdown cells are its prose (`notebook_markdown`).
NOTEBOOK = ".ipynb"
PAGE_SUFFIXES = (*MARKDOWN_PAGES, NOTEBOOK, ".html", ".htm", ".pdf", ".txt", ".rst")
_INDEX_NAMES = ("index.md", "README.md", "_index.md", "index.mdx", "readme.md", "index.html")
MAX_PAGES = 20_000  # pages of the checkout read for their routes
FRONT_BYTES = 16 * 1024  # what is read of a page for its route (front matter, includes)
NOT_RESOLVED = "internal link not resolved: set site-root or site-url"
# Jekyll's page assembled from files next to it: `{% include_relative sp800-63c/sec4_fal.md %}`.
_INCLUDE = re.compile(r"\{%-?\s*include_relative\s+([^\s%]{1,300})\s*-?%\}")
_FRONT_KEY = re.compile(r"(slug|permalink|url|id)\s*[:=]\s*[\"']?([^\"'\s#][^\"'\n]{0,300}?)[\"']?\s*$")
_DATE_PREFIX = re.compile(r"(\d{4})-(\d{2})-(\d{2})-(.+)")
_NUMBER_PREFIX = re.compile(r"^\d+[-_](?=\D)")


@dataclass(frozen=True)
class Checkout:
    """The project's own pages a run's internal links resolve to."""

    root: Path | None  # the checkout (None: no file is read, e.g. a draft given without a root)
    site_roots: tuple[str, ...] = ()  # `site-root`: folders of it that site paths start from
    site_url: str | None = None  # `site-url`: the published site


@dataclass
class Target:
    """Where one internal link leads."""

    path: str | None = None  # a file of the checkout, with the anchor ("docs/x.md#timeout")
    url: str | None = None  # the site's page, or a reference entry's source
    error: str | None = None  # why it leads nowhere known
    reference: bool = False  # `url` is a reference-list entry's source


@dataclass
class _Page:
    """What the checkout's route index knows of one page."""

    routes: list[str] = field(default_factory=list)
    includes: list[str] = field(default_factory=list)  # the parts it assembles, from the root


def resolve_internal(
    claims: list[Claim], files: Iterable[SelectedFile], checkout: Checkout, max_bytes: int
) -> None:
    """Each internal citation of `claims` resolved in place (see the module's docstring): to a
    file (`path`), to the site or a reference entry's source (`url`), or to an error; and with
    `site-url`, each web link to the site followed to the checkout's file when it has one."""
    site = Site(checkout, max_bytes)
    places = {f.display: site.place_of(f) for f in files}
    for claim in claims:
        if not any(c.kind == CitationKind.internal or site.own_url(c.url) for c in claim.citations):
            continue
        place = places.get(claim.file)
        claim.citations = [site.citation(c, place, claim.line) for c in claim.citations]


class Site:
    """The checkout's pages, read as they are needed (texts, anchors, the route index once)."""

    def __init__(self, checkout: Checkout, max_bytes: int) -> None:
        self.checkout = checkout
        self.root = checkout.root.resolve() if checkout.root is not None else None
        self.max_bytes = max_bytes
        self._texts: dict[str, str | None] = {}
        self._heads: dict[str, str] = {}
        self._references: dict[str, dict[str, list[str]]] = {}
        self._pages: dict[str, _Page] | None = None
        self._routes: dict[str, str] = {}  # route key → page
        self._part_of: dict[str, str] = {}  # a part → the page that includes it
        self._labels: dict[str, str | None] | None = None  # a book's label → the page declaring it

    # --- the citing file

    def place_of(self, f: SelectedFile) -> str | None:
        """Where a selected file stands in the checkout (None: outside it, or no checkout)."""
        if f.place is not None:
            return _plain(f.place)
        if self.root is None:
            return None
        try:
            return Path(f.path).resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return None

    def own_url(self, url: str | None) -> bool:
        site = self.checkout.site_url
        return bool(url and site and self.root is not None and _under_site(url, site))

    # --- one citation

    def citation(self, c: Citation, place: str | None, line: int) -> Citation:
        if c.kind == CitationKind.internal and c.resolve_status == ResolveStatus.ok:
            target = self.follow(c.identifier or "", place, line)
        elif self.own_url(c.url) and c.resolve_status == ResolveStatus.ok:
            where, _, anchor = _site_path(c.url or "", self.checkout.site_url or "").partition("#")
            found = self.site_file(unquote(where))
            if found is None or found.path is None:
                return c  # the site's page, fetched
            target = self.anchored(found.path, anchor, place, line) if anchor else found
            if target.error is not None:
                return c
        else:
            return c
        if target.error is not None:
            return c.model_copy(update={"resolve_status": ResolveStatus.error, "resolve_error": target.error})
        update: dict[str, object] = {"path": target.path, "url": target.url}
        if target.reference:
            update["kind"] = CitationKind.reference
        return c.model_copy(update=update)

    def follow(self, href: str, place: str | None, line: int) -> Target:
        """Where `href`, written in the file at `place` (line `line`), leads."""
        where, _, anchor = href.partition("#")
        where = unquote(where.split("?", 1)[0])
        site_path = where.startswith("/")
        if self.root is not None and (place is not None or site_path):
            if not where:  # an in-page anchor
                assert place is not None
                return self.anchored(place, anchor, place, line)
            found = self.file_for(where, place)
            if found is not None:
                if found.error is None and found.path is not None and anchor:
                    return self.anchored(found.path, anchor, place, line)
                return found
        site = self.checkout.site_url
        if site and (site_path or place is not None):
            return Target(url=self.site_url_of(href, place, site))
        if place is None and not site_path:
            return Target(error=self._no_place())
        return Target(error=f"{NOT_RESOLVED} (no file of the checkout is {href})")

    def _no_place(self) -> str:
        if self.root is None:
            return f"{NOT_RESOLVED} (no checkout to read the link in: give the draft's root)"
        return f"{NOT_RESOLVED} (the citing file is outside the checkout)"

    def file_for(self, where: str, place: str | None) -> Target | None:
        """The page `where` names (a site path, or relative to `place`), or an error saying
        why the file it names is no page; None: no file of the checkout."""
        if self.root is None:
            return None
        if where.startswith("/"):
            return self.site_file(where)
        if place is None:
            return None
        rel = _join(posixpath.dirname(place), where)
        found = self.page_at(rel) if rel is not None else None
        if found is not None:
            return found
        route = self.route_of(place)
        if route is None:
            return None
        # the page's URL as a file's ("/docs/intro"), then as a folder's: "/async/", where MkDocs'
        # directory URLs and Hugo's pretty ones put "../advanced/transports"
        for base in (posixpath.dirname(route.lstrip("/")), route.lstrip("/")):
            joined = _join(base, where)
            if joined is not None and (found := self.by_route(joined)) is not None:
                return found
        return None

    def site_file(self, site_path: str) -> Target | None:
        """The page a site path names: under each site root, else by its route."""
        if self.root is None:
            return None
        rel = site_path.lstrip("/")
        for top in self.checkout.site_roots or (".",):
            joined = _join(top, rel) if rel else _plain(top)
            if joined is not None and (found := self.page_at(joined)) is not None:
                return found
        return self.by_route(rel)

    def page_at(self, rel: str) -> Target | None:
        """The page at `rel` or where the generators' conventions put it (see the module's
        docstring); an error if it is a file but no page; None if there is none."""
        assert self.root is not None
        stem, ext = posixpath.splitext(rel)
        names = [rel] if rel not in ("", ".") else []
        if ext.lower() in (".html", ".htm"):
            names += [stem + s for s in (*MARKDOWN_PAGES, NOTEBOOK)]
        elif ext.lower() not in PAGE_SUFFIXES:
            names += [rel + s for s in (*MARKDOWN_PAGES, NOTEBOOK)]
        names += [_plain(posixpath.join(rel, n)) for n in _INDEX_NAMES]
        for name in names:
            path = self.root / name
            if path.is_file():
                if not name.lower().endswith(PAGE_SUFFIXES):
                    return Target(
                        error=f"{NOT_RESOLVED} ({name} is no page: only Markdown, notebooks, HTML, PDF, "
                        "text are read)"
                    )
                return Target(path=name)
        if rel and (self.root / rel).is_dir():
            return Target(error=f"{NOT_RESOLVED} ({rel}/ is a folder without an index page)")
        return None

    # --- anchors

    def anchored(self, page: str, anchor: str, place: str | None, line: int) -> Target:
        """`page#anchor`: the part of the page it names, the page itself, or a reference
        entry's source (see the module's docstring)."""
        same = page == place
        if not anchor:
            return Target(path=page) if not same else Target(error=f"{NOT_RESOLVED} (a link to its own page)")
        for part in self.parts(page):
            text = self.text(part)
            if text is None:
                continue
            lines = text.split("\n")
            span = anchors.section(lines, anchor)
            if span is None:
                continue
            refs = self.references(part, text)
            if anchor in refs:
                urls = refs[anchor]
                if not urls:
                    return Target(error=f"reference #{anchor} ({part}) has no URL or DOI")
                return Target(url=urls[0], reference=True)
            if part == place and span[0] < line <= span[1]:
                return Target(error=f"{NOT_RESOLVED} (#{anchor} is the section the sentence stands in)")
            return Target(path=f"{part}#{anchor}")
        if same:
            # a book's label ({ref}`x`, {eq}`x`) names a part of whichever page declares it
            elsewhere = self.labelled(anchor)
            if elsewhere is not None and elsewhere != page:
                return self.anchored(elsewhere, anchor, place, line)
            return Target(error=f"{NOT_RESOLVED} (no part of this page declares #{anchor})")
        return Target(path=page)

    def labelled(self, label: str) -> str | None:
        """The page that declares the book's label `label` (`anchors.global_labels`), when one
        page alone does; the pages are read once, when a label is first looked for."""
        if self._labels is None:
            self._labels = {}
            for page in self.index():
                if page.lower().endswith((*MARKDOWN_PAGES, NOTEBOOK)):
                    # every page is read for its labels once, and not kept: a site's pages
                    # together may be far larger than the few a run's links name
                    text = self._texts[page] if page in self._texts else self._page_text(page)
                    for found in anchors.global_labels(text or ""):
                        if self._labels.setdefault(found, page) != page:
                            self._labels[found] = None  # a label two pages declare names neither
        return self._labels.get(label)

    def parts(self, page: str) -> Iterator[str]:
        """The files of the page `page` is, or is a part of, each once: itself first, then its
        own parts, then the page that includes it and that page's other parts (Jekyll's
        `include_relative`; the route index is read only if the anchor is in none before)."""
        seen = {page}
        yield page
        for part in self.includes(page):
            if part not in seen:
                seen.add(part)
                yield part
        whole = self.including(page)
        if whole is not None:
            for part in (whole, *self.includes(whole)):
                if part not in seen:
                    seen.add(part)
                    yield part

    def includes(self, page: str) -> list[str]:
        """The parts a page assembles (from the root), read from its start."""
        head = self.head(page)
        if "include_relative" not in head:
            return []
        folder = posixpath.dirname(page)
        found = (_join(folder, m.group(1)) for m in _INCLUDE.finditer(head))
        return [p for p in found if p is not None]

    def including(self, part: str) -> str | None:
        """The page that includes `part` (read from the route index)."""
        self.index()
        return self._part_of.get(part)

    def references(self, part: str, text: str) -> dict[str, list[str]]:
        if part not in self._references:
            self._references[part] = (
                anchor_sources(text, part) if part.lower().endswith((*MARKDOWN_PAGES, NOTEBOOK)) else {}
            )
        return self._references[part]

    # --- routes

    def index(self) -> dict[str, _Page]:
        """The route index: every page under the site roots (or the checkout), read once."""
        if self._pages is not None:
            return self._pages
        assert self.root is not None
        self._pages = {}
        ranks: dict[str, int] = {}  # route key → the rank of the page it names now
        for top in self.checkout.site_roots or (".",):
            base = _plain(top)
            folder = self.root / base if base else self.root
            if not folder.is_dir():
                continue
            files, _ = walk_files(folder)
            for path in sorted(files)[:MAX_PAGES]:
                rel = path.relative_to(self.root).as_posix()
                if rel in self._pages or not rel.lower().endswith((*MARKDOWN_PAGES, NOTEBOOK, ".html")):
                    continue
                routes = _routes(PurePosixPath(rel).relative_to(base or ".").as_posix(), self.head(rel))
                page = _Page(routes=[key for key, _ in routes], includes=self.includes(rel))
                self._pages[rel] = page
                for key, rank in routes:
                    for k in {key, key.lower()}:
                        if k not in ranks or rank < ranks[k]:
                            ranks[k] = rank
                            self._routes[k] = rel
                for part in page.includes:
                    self._part_of.setdefault(part, rel)
        return self._pages

    def by_route(self, route: str) -> Target | None:
        page = self._route_page(route)
        return Target(path=page) if page is not None else None

    def _route_page(self, route: str) -> str | None:
        self.index()
        key = _route_key(route)
        return self._routes.get(key) or self._routes.get(key.lower())

    def route_of(self, page: str) -> str | None:
        """The citing page's route, which its relative links resolve from on the site (a part's:
        the page's that includes it)."""
        pages = self.index()
        known = pages.get(self._part_of.get(page, page))
        return f"/{known.routes[0]}" if known is not None and known.routes else None

    def site_url_of(self, href: str, place: str | None, site: str) -> str:
        base = site.rstrip("/") + "/"
        if href.startswith("/"):
            return urljoin(base, href.lstrip("/"))
        route = self.route_of(place) if place is not None and self.root is not None else None
        if route is None and place is not None:
            route = "/" + _route_key(place)
        return urljoin(base + (route or "/").lstrip("/"), href)

    # --- reading

    def head(self, rel: str) -> str:
        """The start of a page: its front matter, the parts it includes."""
        if rel not in self._heads:
            self._heads[rel] = self._read(rel, FRONT_BYTES) or ""
        return self._heads[rel]

    def text(self, rel: str) -> str | None:
        """A page's text (up to the byte cap), or None where it cannot be read; kept, as the
        pages a run's links name are read again for each anchor."""
        if rel not in self._texts:
            self._texts[rel] = self._page_text(rel)
        return self._texts[rel]

    def _page_text(self, rel: str) -> str | None:
        text = self._read(rel, self.max_bytes)
        return notebook_markdown(text) if text is not None and rel.lower().endswith(NOTEBOOK) else text

    def _read(self, rel: str, limit: int) -> str | None:
        """Up to `limit` bytes of a file of the checkout, as text; None where it cannot be read."""
        assert self.root is not None
        try:
            return read_in_tree(self.root, rel, limit)[:limit].decode("utf-8", "replace")
        except (OSError, UnsafePathError):
            return None


def notebook_markdown(text: str) -> str:
    """A Jupyter notebook's prose: its Markdown cells, in order, as one Markdown text ("" when
    the notebook cannot be read: not JSON, or cut at the byte cap)."""
    try:
        notebook = json.loads(text)
    except ValueError:
        return ""
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        return ""
    out: list[str] = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "markdown":
            source = cell.get("source", "")
            out.append(
                "".join(x for x in source if isinstance(x, str)) if isinstance(source, list) else str(source)
            )
    return "\n\n".join(out)


def _plain(path: str) -> str:
    """A path from the checkout's root without "./" and trailing "/" ("" for the root)."""
    out = posixpath.normpath(path.strip("/")) if path.strip("/") else ""
    return "" if out == "." else out


def _join(folder: str, where: str) -> str | None:
    """`where` from `folder`, both from the checkout's root; None when it leaves the checkout."""
    joined = posixpath.normpath(posixpath.join(folder or ".", where))
    if joined == "..".strip() or joined.startswith("../") or joined == ".." or joined.startswith("/"):
        return None
    return "" if joined == "." else joined


def _route_key(route: str) -> str:
    """A route as the index keys it: no slashes at its ends, no `.html`/`.md` suffix."""
    key = route.strip().strip("/")
    low = key.lower()
    for suffix in (".html", ".htm", NOTEBOOK, *MARKDOWN_PAGES):
        if low.endswith(suffix):
            return key[: -len(suffix)]
    return key


def _routes(rel: str, head: str) -> list[tuple[str, int]]:
    """The routes a page at `rel` (from its site root) answers to, each with its rank (lower is
    surer: the front matter's, then the page's own path, then the path without a date or a
    number prefix, then a folder's index page's, then a folder's README's), its own first."""
    stem = posixpath.splitext(rel)[0]
    parts = [_NUMBER_PREFIX.sub("", p, count=1) or p for p in stem.split("/")]
    rank = 2
    if parts and parts[-1].lower() in ("index", "readme", "_index"):
        rank = 4 if parts[-1].lower() == "readme" else 3
        parts = parts[:-1]
    folder = [p for p in parts[:-1] if p != "_posts"]
    name = parts[-1] if parts else ""
    found: list[tuple[str, int]] = []
    front = _front_matter(head)
    if "permalink" in front and ":" not in front["permalink"]:
        found.append((front["permalink"], 0))
    if "url" in front:
        found.append((front["url"], 0))
    if "slug" in front:
        slug = front["slug"]
        found.append((slug if slug.startswith("/") else "/".join([*folder, slug]), 0))
    if "id" in front and "/" not in front["id"]:
        found.append(("/".join([*folder, front["id"]]), 0))
    found.append((stem, 1 if rank == 2 else rank))
    found.append(("/".join([*folder, name]) if name else "/".join(folder), rank))
    dated = _DATE_PREFIX.fullmatch(name)
    if dated is not None:
        found.append(("/".join([*folder, dated.group(4)]), 2))
        found.append(("/".join([*folder, *dated.group(1, 2, 3), dated.group(4)]), 2))
    best: dict[str, int] = {}
    for route, r in found:
        key = _route_key(route)
        best[key] = min(r, best.get(key, r))
    return list(best.items())


def _front_matter(head: str) -> dict[str, str]:
    """The route keys of a page's YAML or TOML front matter (`slug`, `permalink`, `url`, `id`)."""
    lines = head.split("\n")
    if not lines or lines[0].strip() not in ("---", "+++"):
        return {}
    mark, out = lines[0].strip(), {}
    for line in lines[1:]:
        if line.strip() == mark:
            break
        m = _FRONT_KEY.match(line)
        if m is not None:
            out.setdefault(m.group(1), m.group(2).strip())
    return out


def _under_site(url: str, site: str) -> bool:
    a, b = urlsplit(url), urlsplit(site)
    if (a.hostname or "").lower() != (b.hostname or "").lower():
        return False
    prefix = b.path.rstrip("/")
    return a.path == prefix or a.path.startswith(prefix + "/")


def _site_path(url: str, site: str) -> str:
    """The site path of a URL of the site ("/docs/x#y" for "https://site/docs/x#y")."""
    a, prefix = urlsplit(url), urlsplit(site).path.rstrip("/")
    path = a.path[len(prefix) :] or "/"
    return path + (f"#{a.fragment}" if a.fragment else "")
