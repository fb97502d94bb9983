"""How a sentence is phrased: the forms the skip rules (`citecheck.extract.skip`) read to tell a
sentence that asserts nothing (a question, a pointer, an instruction, a byline) from a claim.
Not the citation forms, which are `citecheck.extract.forms`.

- `grammar`: verbs, statements and titles, fragments, changes and findings reported;
- `boilerplate`: pointers, calls to action, thanks, credits, bylines, stamps, metadata, lead-ins;
- `reader`: imperatives, advice and opinions, and what is addressed to the reader;
- `unchecked`: an uncited sentence with nothing to check (hedges, plans, method notes).
The word lists they share with the claim kinds are `citecheck.extract.words`.
"""
