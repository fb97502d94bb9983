"""The judge stage (docs/ARCHITECTURE.md): an LLM decides whether a cited source supports a claim.

    resolve.py    settings + environment -> JudgeConfig (or a ConfigError, before any fetch)
    core.py       Judge: batching, verdict cache, quote retries, failure_error
    prompt.py     the prompt and the output contract (PROMPT_VERSION, VERDICT_SCHEMA, parse_verdicts)
    quotes.py     the evidence quote must be on the page
    ledger.py     the cost cap: reserve the worst case, settle on the real usage
    pricing.py    the price table (joined from the providers' lists) and cost arithmetic
    providers/    one module per provider behind the `Provider` protocol, and the registry

Nothing is imported here: the CLI and the Action import `providers` for their choices and
inputs, and that must stay cheap for runs that never judge.
"""
