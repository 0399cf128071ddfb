"""The engine benchmark (``benchmarks/engine.py``) runs and reports every figure (speed itself
is never asserted)."""

from __future__ import annotations

import json

import pytest

from benchmarks import engine as bench


def test_bench_json_has_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--json", "--rounds", "4", "--runs", "1"]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("classic_2p_rounds_per_s", "classic_4p_rounds_per_s", "royal_2p_rounds_per_s",
                "movegen_us_median", "movegen_us_p99", "movegen_us_max", "state_clone_us"):
        assert result[key] > 0, key
    assert result["movegen_us_median"] <= result["movegen_us_p99"] <= result["movegen_us_max"]
    assert result["stress_20_card_table_moves"] > 1000
    assert isinstance(result["engine_compiled"], bool)


def test_bench_rejects_bad_arguments() -> None:
    with pytest.raises(SystemExit) as exc:
        bench.main(["--rounds", "0"])
    assert exc.value.code == 2
