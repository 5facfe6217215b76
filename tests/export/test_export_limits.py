"""The distance to the GPU's limit in the export (issue 39): results.csv's columns, the best's JSON,
report.md's section and report.html's roofline; on a replay of the recording made on an NVIDIA H100
80GB HBM3 on 2026-12-06 (tests/fixtures/h100-2026-12-06), and on an H200 recording without facts."""

import csv
import json
import xml.etree.ElementTree as ET

from kt_tui.export.roofline import Point, roofline_svg

from ..conftest import EXAMPLES, ROOT
from ..helpers import run_cli

H100 = ROOT / "tests" / "fixtures" / "h100-2026-12-06"
FACTS = json.loads((H100 / "facts.json").read_text())


def _run_and_export(capsys, tmp_path, *argv):
    code, out = run_cli(capsys, "run", *argv, "--auto", "--json", "--backend", "sim")
    assert code == 0
    code, _ = run_cli(capsys, "export", out["session"], "--out", tmp_path / "out", "--json")
    assert code == 0
    return out, tmp_path / "out"


def test_the_h100_replay_exports_its_share_of_the_copy_peak_a_roofline_and_the_profile(capsys, tmp_path):
    out, folder = _run_and_export(capsys, tmp_path, H100 / "vadd.cu", "--sim-cache", H100 / "recorded")
    rows = list(csv.DictReader((folder / "results.csv").open()))
    assert rows[0]["pct_of_peak"] == "91.64" and rows[0]["gb_per_s"] == "2771.185" and rows[0]["gflop_per_s"] == ""
    best = json.loads((folder / "vadd.best.json").read_text())
    assert best["device"]["name"] == "NVIDIA H100 80GB HBM3"
    assert round(best["limits"]["pct_bw"], 1) == 91.6 and best["limits"]["estimated"] is True
    assert best["profile"]["state"] == "recorded" and round(best["profile"]["dram_pct"]) == 82
    md = (folder / "report.md").read_text()
    assert "## Distance to the GPU's limit" in md and "| baseline | 0.2906 ms | 2771 | - | 91.6 % (memory) |" in md
    assert "![the roofline](report-roofline.svg)" in md and "Bytes estimated" in md
    assert "- original 256 (recorded): SM 41 %, DRAM 82 % of peak" in md
    html = (folder / "report.html").read_text()
    roof = html[html.index('<figure class="roofline">') :]
    svg = roof[roof.index("<svg") : roof.index("</svg>") + 6]
    ET.fromstring(svg)  # well-formed, self-contained
    assert "measured copy 3024 GB/s" in svg and "91.6 % of the copy peak" in svg and "<script" not in html


def test_an_h200_recording_without_facts_exports_no_share_and_says_why_there_is_no_roofline(capsys, tmp_path):
    _, folder = _run_and_export(capsys, tmp_path, EXAMPLES / "vector_add.cu")
    rows = list(csv.DictReader((folder / "results.csv").open()))
    assert {r["pct_of_peak"] for r in rows} == {""} and rows[0]["gb_per_s"]  # [metrics] bytes: GB/s, no peak
    md = (folder / "report.md").read_text()
    assert "NVIDIA H200 (recorded 2026-11-22): device facts not recorded" in md
    assert "No roofline: the device's measured peaks are not recorded" in md and "H100" not in md
    assert not (folder / "report-roofline.svg").exists()


def test_a_roofline_with_flops_places_each_point_by_its_intensity_under_the_roofs():
    points = [Point("baseline", 12e6, 2.1e9, 0.5), Point("step <1>", 12e6, 2.1e9, 0.05)]
    svg = roofline_svg(points, FACTS)
    ET.fromstring(svg)
    assert "FP32 FMA 55.7 TFLOP/s; copy 3024 GB/s" in svg
    assert "step &lt;1&gt;: 42000 GFLOP/s at 175.00 FLOP/B" in svg  # escaped; 2.1e9 FLOP in 0.05 ms
    assert roofline_svg(points, None) is None and roofline_svg([Point("x", None, None, 1.0)], FACTS) is None
