"""Extract stage (with resolve): Markdown → claims with resolved citations (see docs/ARCHITECTURE.md).

- `document`: the Markdown walk, positions, claims; the entry points `extract_text`, `extract_file`
- `kinds`: claim kinds of a sentence, questions, imperatives and opinions
- `citations`: the registry of citation forms (the parse gate, canonical URLs, `text_without_citations`)
- `forms/`: one module per form with a syntax of its own (bare URLs, DOIs, arXiv ids, PMIDs)
- `resolve`: links, footnotes, reference lists, numbered and author-year references
- `urls`: URL trimming and text fragments
"""
