"""Settings parsing and the narrowing-only config file (the workflow inputs are the ceiling: SECURITY.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from citecheck.config import (
    DEFAULT_PATHS,
    JUDGE_AUTO,
    FilterMode,
    JudgeMode,
    Settings,
    load_config_file,
    narrow,
    narrowing,
    parse_ignore_file,
    parse_shard,
    split_list,
)
from citecheck.errors import ConfigError
from citecheck.policy import DEFAULT_FAIL_ON

# --------------------------------------------------------------------------- parsing


def test_defaults() -> None:
    s = Settings()
    assert s.paths == DEFAULT_PATHS
    assert s.fail_on == DEFAULT_FAIL_ON
    assert "not-verified" not in s.fail_on and "unsourced" not in s.fail_on
    assert s.filter_mode == FilterMode.added
    assert s.judge == JUDGE_AUTO
    assert s.allowed_domains == []
    assert s.shard is None and s.shard_tuple is None
    assert s.fetch is True


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a.com,b.org", ["a.com", "b.org"]),
        ("a.com, b.org", ["a.com", "b.org"]),
        ("a.com\nb.org\n", ["a.com", "b.org"]),  # a multi-line Action input
        ("  a.com  b.org ", ["a.com", "b.org"]),
        (",,a.com,,\n,", ["a.com"]),
        ("", []),
        (None, []),
        (["a.com,b.org", "c.net"], ["a.com", "b.org", "c.net"]),  # repeated flags
    ],
)
def test_split_list(raw: str | list[str] | None, expected: list[str]) -> None:
    assert split_list(raw) == expected


def test_list_inputs_arrive_as_strings() -> None:
    s = Settings.model_validate(
        {
            "allowed_domains": "Nature.com,\nwww.NIH.gov.\n",
            "fail_on": "unsupported, unsourced",
            "paths": "docs/**/*.md\nREADME.md",
            "allow_private_hosts": "Intranet.Local",
        }
    )
    assert s.allowed_domains == ["nature.com", "www.nih.gov"]
    assert s.fail_on == ["unsupported", "unsourced"]
    assert s.paths == ["docs/**/*.md", "README.md"]
    assert s.allow_private_hosts == ["intranet.local"]


def test_fail_on_rejects_unknown_categories() -> None:
    with pytest.raises(ValidationError, match="unknown fail-on categories") as info:
        Settings(fail_on="unsupported,unsuported")
    assert "unsuported" in str(info.value)
    assert "not-verified" in str(info.value)  # the message lists the valid choices


def test_fail_on_accepts_every_category() -> None:
    every = "unsupported,unreachable,not-extractable,disallowed,limit,not-verified,unsourced"
    assert len(Settings(fail_on=every).fail_on) == 7


@pytest.mark.parametrize(("raw", "expected"), [("1/4", (1, 4)), ("4/4", (4, 4)), ("1/1", (1, 1)), ("", None)])
def test_parse_shard(raw: str, expected: tuple[int, int] | None) -> None:
    assert parse_shard(raw) == expected


@pytest.mark.parametrize("raw", ["0/4", "5/4", "1/0", "1-4", "a/b", "1/4/2", "/4", "-1/4"])
def test_bad_shard_is_a_config_error(raw: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_shard(raw)
    assert raw in str(info.value)
    assert info.value.hint


def test_shard_in_settings() -> None:
    assert Settings(shard="2/3").shard_tuple == (2, 3)
    assert Settings(shard="").shard is None
    with pytest.raises(ConfigError):
        Settings(shard="3/2")


@pytest.mark.parametrize(
    ("field", "value"),
    # An unknown `judge` is rejected by resolve_judge, which knows the providers: test_judge_resolve.py.
    [("max_cost_usd", -1), ("max_claims", -1), ("concurrency", 0), ("timeout_s", 0)],
)
def test_out_of_range_values_are_rejected(field: str, value: object) -> None:
    with pytest.raises(ValidationError):
        Settings.model_validate({field: value})


def test_config_error_carries_a_hint() -> None:
    err = ConfigError("no API key", "set ANTHROPIC_API_KEY or pass --judge none", code="no-key")
    assert str(err) == "no API key\n  hint: set ANTHROPIC_API_KEY or pass --judge none"
    assert err.code == "no-key"
    assert str(ConfigError("plain")) == "plain"


# --------------------------------------------------------------------------- narrowing


CEILING = Settings(
    allowed_domains="nature.com,nih.gov",
    max_cost_usd=2.0,
    max_claims=100,
    fail_on="unsupported,unreachable",
    concurrency=32,
    timeout_s=10,
    max_source_bytes=1_000_000,
    evidence_chars=4000,
)


def test_config_may_narrow_the_allowlist() -> None:
    s = narrow(CEILING, {"allowed-domains": ["www.nature.com", "NIH.gov."]}, ".citecheck.toml")
    assert s.allowed_domains == ["www.nature.com", "nih.gov"]


@pytest.mark.parametrize("wider", ["evil.com", "evilnature.com", "com", "nature.com.evil.org"])
def test_config_may_not_widen_the_allowlist(wider: str) -> None:
    with pytest.raises(ConfigError) as info:
        narrow(CEILING, {"allowed_domains": ["nature.com", wider]}, "repo/.citecheck.toml")
    assert "repo/.citecheck.toml" in str(info.value)
    assert wider in str(info.value)


def test_an_empty_allowlist_in_the_config_does_not_open_the_ceiling() -> None:
    # An empty allowlist means "any public host": from a config file that would widen.
    with pytest.raises(ConfigError, match=r"\.citecheck\.toml"):
        narrow(CEILING, {"allowed_domains": []}, ".citecheck.toml")
    with pytest.raises(ConfigError, match=r"\.citecheck\.toml"):
        narrow(CEILING, {"allowed_domains": ""}, ".citecheck.toml")


def test_config_may_set_an_allowlist_when_the_ceiling_has_none() -> None:
    s = narrow(Settings(), {"allowed_domains": "example.org"}, ".citecheck.toml")
    assert s.allowed_domains == ["example.org"]
    assert narrow(Settings(), {"allowed_domains": []}, ".citecheck.toml").allowed_domains == []


@pytest.mark.parametrize(
    ("key", "lower", "higher"),
    [
        ("max_cost_usd", 0.5, 50.0),
        ("max_claims", 10, 10_000),
        ("concurrency", 4, 512),
        ("timeout_s", 3, 600),
        ("max_source_bytes", 1000, 10**9),
        ("evidence_chars", 1000, 100_000),
        ("judge_concurrency", 4, 512),
    ],
)
def test_caps_take_the_minimum(key: str, lower: float, higher: float) -> None:
    assert getattr(narrow(CEILING, {key: lower}, "c.toml"), key) == lower
    assert getattr(narrow(CEILING, {key: higher}, "c.toml"), key) == getattr(CEILING, key)


def test_judge_mode_and_the_deadline_of_each_mode() -> None:
    assert Settings().judge_mode == JudgeMode.interactive and Settings().deadline_minutes() == 30
    batch = Settings(judge_mode="batch")
    assert batch.judge_mode == JudgeMode.batch and batch.deadline_minutes() == 330
    assert Settings(judge_mode="batch", judge_deadline_minutes=45).deadline_minutes() == 45
    assert Settings().judge_concurrency == 32
    with pytest.raises(ValidationError):
        Settings(judge_mode="overnight")
    with pytest.raises(ValidationError):
        Settings(judge_deadline_minutes=0)
    # The file's deadline is compared with the mode's default when the ceiling gives none.
    assert narrow(Settings(), {"judge_deadline_minutes": 5}, "c.toml").deadline_minutes() == 5
    assert narrow(Settings(), {"judge_deadline_minutes": 600}, "c.toml").deadline_minutes() == 30
    assert (
        narrow(Settings(judge_mode="batch"), {"judge_deadline_minutes": 400}, "c.toml").deadline_minutes()
        == 330
    )
    with pytest.raises(ConfigError, match="judge_mode"):
        narrow(Settings(), {"judge_mode": "batch"}, "c.toml")


def test_hyphenated_keys_work_like_the_action_inputs() -> None:
    assert narrow(CEILING, {"max-cost-usd": 0.25}, "c.toml").max_cost_usd == 0.25


def test_nan_cannot_disable_the_cost_cap() -> None:
    # Every comparison with NaN is false, so a NaN cap would never stop a call.
    with pytest.raises(ConfigError, match=r"c\.toml"):
        narrow(CEILING, {"max_cost_usd": float("nan")}, "c.toml")
    with pytest.raises(ValidationError):
        Settings(max_cost_usd=float("nan"))


def test_a_cap_of_the_wrong_type_names_the_file() -> None:
    with pytest.raises(ConfigError, match=r"c\.toml"):
        narrow(CEILING, {"max_cost_usd": "lots"}, "c.toml")
    with pytest.raises(ConfigError, match=r"c\.toml"):
        narrow(CEILING, {"max_claims": -5}, "c.toml")


def test_fail_on_is_a_union() -> None:
    s = narrow(CEILING, {"fail_on": "unsourced,unsupported"}, "c.toml")
    assert set(s.fail_on) == {"unsupported", "unreachable", "unsourced"}
    # An empty list in the config drops nothing.
    assert set(narrow(CEILING, {"fail_on": []}, "c.toml").fail_on) == set(CEILING.fail_on)


def test_unknown_fail_on_in_the_config_names_the_file() -> None:
    with pytest.raises(ConfigError, match=r"c\.toml"):
        narrow(CEILING, {"fail_on": "everything"}, "c.toml")


def test_ignore_adds_and_paths_narrow() -> None:
    base = Settings(ignore="drafts/**")
    s = narrow(base, {"ignore": ["vendor/**"], "paths": "docs/**/*.md"}, "c.toml")
    assert s.ignore == ["drafts/**", "vendor/**"]
    assert s.paths == base.paths  # the workflow's globs stay; a file must match both
    assert s.also_paths == ["docs/**/*.md"]


@pytest.mark.parametrize(
    "key",
    [
        "allow_private_hosts",
        "allow-private-hosts",
        "judge",
        "model",
        "base_url",
        "cache_dir",
        "fetch",
        "typo",
    ],
)
def test_non_narrowable_or_unknown_keys_are_errors_naming_the_file(key: str) -> None:
    with pytest.raises(ConfigError) as info:
        narrow(CEILING, {key: "x"}, "docs/.citecheck.toml")
    assert "docs/.citecheck.toml" in str(info.value)
    assert key.replace("-", "_") in str(info.value)
    assert "max_cost_usd" in info.value.hint  # says what may be set


def test_narrow_leaves_the_ceiling_untouched() -> None:
    before = CEILING.model_dump()
    narrow(CEILING, {"max_cost_usd": 0.1, "allowed_domains": "nature.com"}, "c.toml")
    assert CEILING.model_dump() == before


# --------------------------------------------------------------------------- the file


def test_load_flat_and_table_files(tmp_path: Path) -> None:
    flat = tmp_path / "flat.toml"
    flat.write_text('max-cost-usd = 0.5\nallowed-domains = ["nature.com"]\n', encoding="utf-8")
    assert load_config_file(flat) == {"max-cost-usd": 0.5, "allowed-domains": ["nature.com"]}
    table = tmp_path / "table.toml"
    table.write_text('[citecheck]\nfail-on = "unsourced"\n', encoding="utf-8")
    assert load_config_file(table) == {"fail-on": "unsourced"}
    s = narrow(CEILING, load_config_file(table), str(table))
    assert "unsourced" in s.fail_on


@pytest.mark.parametrize(
    "content",
    [b"max_cost_usd = = 1\n", b"\xff\xfe not utf-8", b"citecheck = 3\n"],
    ids=["bad-toml", "bad-utf8", "table-not-a-table"],
)
def test_bad_files_are_config_errors_naming_the_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=r"broken\.toml"):
        load_config_file(path)


def test_missing_or_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.toml"):
        load_config_file(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match=str(tmp_path.name)):
        load_config_file(tmp_path)  # a directory


# --------------------------------------------------------------------------- exclude patterns


def test_exclude_patterns_are_one_a_line_and_validated() -> None:
    s = Settings(exclude="^https://wiki\\.corp/\n# a comment\n\n a{1,3}, b \n")
    assert s.exclude == ["^https://wiki\\.corp/", "a{1,3}, b"]  # never split on commas or spaces
    assert Settings(exclude=["x y", "z"]).exclude == ["x y", "z"]
    with pytest.raises(ValidationError, match=r"'\(unclosed' is not a valid regular expression"):
        Settings(exclude="fine\n(unclosed")


def test_the_config_file_may_only_add_exclude_patterns() -> None:
    base = Settings(exclude=["/internal/"])
    s = narrow(base, {"exclude": ["^https://wiki\\."]}, "c.toml")
    assert s.exclude == ["/internal/", "^https://wiki\\."]
    assert narrow(base, {"exclude": []}, "c.toml").exclude == ["/internal/"]  # cannot drop one
    with pytest.raises(ConfigError, match=r"c\.toml: exclude: '\[a-' is not a valid regular expression"):
        narrow(base, {"exclude": "[a-"}, "c.toml")


def test_ignore_file_patterns_name_their_line() -> None:
    text = "# links that are not sources\n\n^https://wiki\\.corp/\n  /internal/  \n"
    assert parse_ignore_file(text, ".citecheckignore") == ["^https://wiki\\.corp/", "/internal/"]
    with pytest.raises(
        ConfigError, match=r"^\.citecheckignore:3: '\*oops' is not a valid regular expression"
    ):
        parse_ignore_file("ok\n# fine\n*oops\n", ".citecheckignore")


# --------------------------------------------------------------------------- notes, not silence


def test_values_the_ceiling_overrides_are_notes() -> None:
    ceiling = Settings(max_claims=200, max_cost_usd=0.5, min_confidence=0.6)
    narrowed = narrowing(
        ceiling,
        {"max_claims": 1000, "max_cost_usd": 0.25, "min_confidence": 0.4, "timeout_s": 30},
        ".citecheck.toml",
    )
    assert narrowed.settings.max_claims == 200 and narrowed.settings.max_cost_usd == 0.25
    assert narrowed.notes == [
        "max_claims = 1000 in .citecheck.toml is above the workflow's 200; 200 applies",
        "timeout_s = 30 in .citecheck.toml is above the workflow's 10; 10 applies",
        "min_confidence = 0.4 in .citecheck.toml is below the workflow's 0.6; 0.6 applies",
    ]
    # A value within the ceiling, or equal to it, is no news.
    assert narrowing(ceiling, {"max_claims": 200, "max_cost_usd": 0.1}, "c.toml").notes == []
    cli = narrowing(Settings(), {"max_claims": 500}, "c.toml", ceiling="the command line's")
    assert cli.notes == ["max_claims = 500 in c.toml is above the command line's 200; 200 applies"]


def test_a_fail_on_that_leaves_categories_out_is_a_note() -> None:
    notes = narrowing(CEILING, {"fail_on": ["unsupported"]}, "c.toml").notes
    assert notes == [
        "fail_on in c.toml leaves out unreachable, which the workflow's fail-on keeps: "
        "a config file can only add categories"
    ]
    assert narrowing(CEILING, {"fail_on": ["unsupported", "unreachable", "unsourced"]}, "c.toml").notes == []


def test_judge_in_the_config_says_where_it_is_set() -> None:
    with pytest.raises(ConfigError) as info:
        narrow(CEILING, {"judge": "none"}, ".citecheck.toml")
    assert "judge is set in the workflow's `judge` input (or --judge)" in info.value.hint


def test_a_config_file_cannot_turn_the_screen_on() -> None:
    """The screen decides which sentences are checked at all: a PR's own file must not set it."""
    with pytest.raises(ConfigError) as info:
        narrow(CEILING, {"screen": True}, ".citecheck.toml")
    assert "screen is set in the workflow's `screen` input (or --screen)" in info.value.hint


@pytest.mark.parametrize(
    ("key", "value", "where"),
    [
        ("archive", "wayback", "the workflow's `archive` input (or --archive)"),
        ("archive-check", True, "the workflow's `archive-check` input (or --archive-check)"),
        ("archive_url", "http://127.0.0.1:9/wayback/available", "--archive-url"),
    ],
)
def test_a_config_file_cannot_turn_the_archive_on(key: str, value: object, where: str) -> None:
    """The archive option admits the archive's hosts past the allowlist, and archive-check lets a
    snapshot decide a dead link's claim: a PR's own file must not set them."""
    with pytest.raises(ConfigError) as info:
        narrow(CEILING, {key: value}, ".citecheck.toml")
    assert f"{key.replace('-', '_')} is set in {where}" in info.value.hint


def test_archive_settings() -> None:
    assert Settings().archive == "off" and Settings().archive_url == "https://archive.org/wayback/available"
    for off in ("", "none", "off", "false"):
        assert Settings(archive=off).archive == "off"
    assert Settings(archive="wayback", archive_check=True).archive_check
    with pytest.raises(ValidationError, match="archive-check checks claims against archived copies"):
        Settings(archive_check=True)
    with pytest.raises(ValidationError, match="is not an http"):
        Settings(archive="wayback", archive_url="file:///etc/passwd")
    with pytest.raises(ValidationError):
        Settings(archive="ia")


def test_the_action_inputs_of_the_archive() -> None:
    from citecheck.github.action import settings_from_inputs

    env = {"INPUT_ARCHIVE": "wayback", "INPUT_ARCHIVE_CHECK": "true"}
    settings = settings_from_inputs(env, Path("."))
    assert (settings.archive, settings.archive_check) == ("wayback", True)
    assert settings.archive_url == "https://archive.org/wayback/available"  # not an input
    with pytest.raises(ConfigError, match="input archive-check: archive-check checks claims"):
        settings_from_inputs({"INPUT_ARCHIVE_CHECK": "true"}, Path("."))
    with pytest.raises(ConfigError, match="input archive-check: 'maybe' is not a boolean"):
        settings_from_inputs({"INPUT_ARCHIVE": "wayback", "INPUT_ARCHIVE_CHECK": "maybe"}, Path("."))
