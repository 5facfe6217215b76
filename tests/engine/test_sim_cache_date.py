"""A replay names the GPU and the date it was recorded on; a cache that says no date, or one that is
no date, is shown as "date unknown", never as written (the hostile tester, session 22)."""

import datetime

import pytest

from kt_tui.gpu.simcache import gpu_label

GPU = "NVIDIA H200"


def test_a_recorded_date_is_shown_as_its_day():
    assert gpu_label({"device_name": GPU, "kt_tui": {"recorded": "2026-11-22T10:31:00"}}) == (
        "NVIDIA H200 (recorded 2026-11-22)"
    )


@pytest.mark.parametrize(
    "meta",
    [
        {},
        {"recorded": None},
        {"recorded": "yesterday"},
        {"recorded": "2026-13-40"},
        {"recorded": 20261122},
        {"recorded": "2099-01-01"},
        "not a table",
    ],
)
def test_no_date_or_one_that_is_no_date_is_said_unknown(meta):
    assert gpu_label({"device_name": GPU, "kt_tui": meta}) == "NVIDIA H200 (recorded: date unknown)"


def test_a_plain_kernel_tuner_cache_has_no_date():
    assert gpu_label({"device_name": GPU}) == "NVIDIA H200 (recorded: date unknown)"


def test_today_is_a_date():
    today = datetime.date.today().isoformat()
    assert gpu_label({"device_name": GPU, "kt_tui": {"recorded": today}}) == f"NVIDIA H200 (recorded {today})"
