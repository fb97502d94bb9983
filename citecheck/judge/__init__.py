"""The judge stage (docs/ARCHITECTURE.md): an LLM decides whether a cited source supports a claim.

    resolve.py    settings + environment -> JudgeConfig (or a ConfigError, before any fetch)
    core.py       Judge: claims per call, shared cached excerpts, verdict cache, quote retries, failure_error
    dispatch.py   how a call reaches the provider: one at a time (Interactive), retries, the deadline
    pacing.py     the account's rate limits mirrored from the headers, the concurrency window, back-off
    batch.py      judge-mode batch: the run's calls through the provider's batch API
    prompt.py     the prompt and the output contract (PROMPT_VERSION, VERDICT_SCHEMA, parse_verdicts)
    answer.py     a model's one answer of its own out of its structured output or its text
    quotes.py     the evidence quote must be on the page
    ledger.py     the cost cap: reserve the worst case, settle on the real usage
    pricing.py    the price table (joined from the providers' lists) and cost arithmetic
    providers/    one module per provider behind the `Provider` protocol, and the registry

Nothing is imported here: the CLI and the Action import `providers` for their choices and
inputs, and that must stay cheap for runs that never judge.
"""
