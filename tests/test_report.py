"""`congsim report`: a self-contained HTML file, checked in a real browser."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess

import pandas as pd
import pytest
from conftest import run_congsim


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory, cli):
    out = tmp_path_factory.mktemp("reproductions")
    done = run_congsim("reproduce", "dumbbell-buffers", "--replications", "2", "--out", str(out), timeout=600)
    assert done.returncode == 0, done.stderr
    return out


def test_report_is_self_contained_with_tables_and_figures(reproduced, cli):
    done = run_congsim("report", str(reproduced))
    assert done.returncode == 0, done.stderr
    page = (reproduced / "report.html").read_text()
    assert page.count("<svg") == 5, "two metric figures and three traces"
    assert page.count("<tr>") == 23, "the summary's header and row, the comparison's header and 20 rows"
    # The summary at the top links to the study's section and counts its verdicts.
    summary = page.split('<table class="summary">')[1].split("</table>")[0]
    assert '<a href="#study-dumbbell-buffers">dumbbell-buffers</a>' in summary
    # ... its score, the trivial predictors' on the same bands with the families where ours are
    # clearly ahead of both, and its claims.
    cells = (
        r"<td>\d+ of 20 agree, \d+ inconclusive</td>"
        r"<td>\d+ of 20, table \d+, per variant \d+; informative: [a-z_, ]+</td><td>none</td>"
    )
    assert re.search(cells, summary), summary
    assert '<section id="study-dumbbell-buffers">' in page
    # Every traced figure names the configuration and the replication it shows.
    captions = re.findall(r"<h3>((?:Total throughput|Congestion window|Queue length)[^<]*)</h3>", page)
    assert len(captions) == 3 and all(
        c.endswith("; replication 0)") and "tcp.variant = " in c for c in captions
    )
    assert "dumbbell-buffers" in page and "agrees" in page
    # Each section lists its parts, every link inside the page has a target, and the table
    # behind each comparison is one link away.
    assert '<a href="#study-dumbbell-buffers-values">reference values</a>' in page
    targets = set(re.findall(r'id="([^"]+)"', page))
    assert {t for t in re.findall(r'href="#([^"]+)"', page)} <= targets
    linked = re.findall(r'href="([^"#][^"]*\.csv)"', page)
    assert linked == ["dumbbell-buffers/comparison.csv"]
    assert all((reproduced / name).is_file() for name in linked)
    # Nothing to fetch: no scripts, no stylesheets, no remote images or links.
    assert not re.search(r"<script|<link|(src|href)=\"(https?:)?//", page)


def test_report_renders_in_headless_chromium(reproduced, cli, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install chromium (see .ci/run)")
        pytest.skip("chromium is not installed")
    subprocess.run([*cli, "report", str(reproduced), "--out", str(tmp_path / "r.html")], check=True)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [browser, *flags, "--dump-dom", f"file://{tmp_path / 'r.html'}"],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert dom.count("<svg") == 5 and dom.count("<table") == 2
    shot = tmp_path / "r.png"
    subprocess.run(
        [browser, *flags, "--window-size=1200,2400", f"--screenshot={shot}", f"file://{tmp_path / 'r.html'}"],
        capture_output=True,
        timeout=120,
    )
    assert shot.stat().st_size > 50_000, "a rendered page, not a blank one"


def test_report_of_an_empty_folder_is_one_error_line(tmp_path, cli):
    done = run_congsim("report", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr == f"error: {tmp_path}: no reproduced studies here (run congsim reproduce first)\n"


def test_reference_tables_are_laid_out_as_the_paper_prints_them():
    """goyal1996's Tables 1-4 as printed: a row per configuration, a column per drop policy, each
    cell the paper's number over ours, coloured by the verdict."""
    from congsim.report import _paper_tables

    comparison = pd.DataFrame(
        {
            "table": ["T3", "T3", "T3", "T4"],
            "label": ["LAN-5-1000", "LAN-5-1000", "WAN-5-12000", "LAN-5-1000"],
            "atm.policy": ["tail_drop", "epd", "tail_drop", "epd"],
            "metric": ["efficiency", "efficiency", "efficiency", "fairness"],
            "reference": [0.53, 0.97, 0.61, 0.99],
            "mean": [0.51, 0.97, 0.82, 0.98],
            "ci_low": [0.45, 0.96, 0.80, 0.97],
            "ci_high": [0.56, 0.98, 0.83, 0.99],
            "verdict": ["inconclusive", "agrees", "differs", "agrees"],
            "scored": [True, True, True, True],
        }
    )
    page = _paper_tables(comparison, ("label", "atm.policy"), "study-x")
    assert page.count("<table>") == 2 and '<h3 id="study-x-table-T3">Table 3</h3>' in page
    table3 = page.split('id="study-x-table-T3"')[1].split("</table>")[0]
    assert "<th>label</th><th>tail_drop</th><th>epd</th>" in table3
    rows = re.findall(r"<tr>(.*?)</tr>", table3.split("<tbody>")[1])
    assert [re.findall(r'<td class="(\w+)"', r) for r in rows] == [["inconclusive", "agrees"], ["differs"]]
    # A configuration the table does not print leaves its cell empty.
    assert rows[1].endswith("<td></td>") and "0.61<br>" in rows[1] and "0.82 [0.8, 0.83]" in rows[1]


def test_the_summary_row_keeps_the_study_title_beside_its_claims(reproduced, tmp_path):
    """A study with claims: the summary row's second cell is the study's title (it once showed
    the last claims heading instead, "of congsim's own checks")."""
    from congsim.report import _study_section
    from congsim.studies import STUDIES

    folder = tmp_path / "dumbbell-buffers"
    shutil.copytree(reproduced / "dumbbell-buffers", folder)
    sides = {f"{side}_{stat}": 1.0 for side in ("lhs", "rhs") for stat in ("mean", "ci_low", "ci_high")}
    ratio = {"ratio": 1.0, "ratio_ci_low": 1.0, "ratio_ci_high": 1.0}
    claim = {"metric": "drops", "factor": 1.0, "n": 2, "lhs": "a", "rhs": "b", **sides, **ratio}
    claim["verdict"] = "holds"
    pd.DataFrame(
        [
            {"claim": "a paper's claim", **claim, "origin": "paper"},
            {"claim": "a check of congsim's own", **claim, "origin": "check"},
        ]
    ).to_csv(folder / "claims.csv", index=False)
    study = STUDIES["dumbbell-buffers"]
    _, summary = _study_section(folder, study)
    cells = re.findall(r'<td style="text-align:left">([^<]*)</td>', summary)
    assert cells[-1] == html.escape(study.title), summary
    assert "1 of 1 claims of the paper hold; 1 of 1 congsim&#x27;s own checks hold" in summary, summary
