"""`congsim report`: a self-contained HTML file, checked in a real browser."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from dataclasses import replace
from urllib.parse import unquote

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
        r"<td>\d+ of 20 agree, \d+ inconclusive, \d+ differ</td>"
        r"<td>a constant guess agrees on \d+ of 20 cells; the table&#39;s other cells agree on \d+ of 20; "
        r"one constant per TCP variant on \d+ of 20; ours clearly ahead of every guess on [a-z_, ]+</td>"
        r"<td>none</td>"
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
    # Nothing to fetch: no scripts (this study has no configuration picker), no stylesheets, no
    # remote images or links.
    assert not re.search(r"<script|<link|(src|href)=\"(https?:)?//", page)
    # Figures in a grid, several to a row on a wide screen.
    assert re.search(r"\.figures \{ display: grid; grid-template-columns: repeat\(auto-fill", page)


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
    # Each coloured cell says its verdict in words too.
    assert (
        '<td class="differs" title="ours differ from the reference (our 95 % CI outside the band)">'
        in rows[1]
    )


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
    cells = re.findall(r"<td>([^<]*)</td>", summary)
    assert cells[0] == html.escape(study.title), summary
    assert "1 of 1 claims of the paper hold; 1 of 1 congsim&#39;s own checks hold" in summary, summary


#: A value from the data that is markup and holds an ampersand: it must land escaped everywhere.
EVIL = "<script>alert(1)</script> & <i>x</i>"


def escaped(text):
    """`text` as autoescape writes it (quotes as numeric references)."""
    for raw, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&#34;"), ("'", "&#39;")):
        text = text.replace(raw, entity)
    return text


def _browser():
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install chromium (see .ci/run)")
        pytest.skip("chromium is not installed")
    return browser


def _with_points(folder, configurations):
    """Gives a copied study folder a traced run per configuration (traces/points/NNN/), each a
    copy of its traced run under the given parameters."""
    for number, params in enumerate(configurations):
        point = folder / "traces" / "points" / f"{number:03d}"
        point.mkdir(parents=True)
        for table in (folder / "traces").glob("*.parquet"):
            shutil.copy(table, point / table.name)
        (point / "configuration.json").write_text(json.dumps(params))


def test_every_value_from_the_data_is_escaped_where_it_lands(reproduced, tmp_path, monkeypatch):
    """A study whose title, notes, claims, axes, labels, metrics, table, variant and traced
    configurations all hold markup and an ampersand: each lands escaped, and the page holds no
    tag but its own (it once wrote two headers and several cells unescaped)."""
    from congsim.report import build_report
    from congsim.studies import STUDIES
    from congsim.studies.declare import Variant

    name, variant_name, table = "evil<i>&study", "v<i>&1", "T<1>&"
    folder = tmp_path / "results" / name
    shutil.copytree(reproduced / "dumbbell-buffers", folder)
    axis = "links[0].queue.limit_packets"
    comparison = pd.read_csv(folder / "comparison.csv").rename(columns={axis: EVIL})
    comparison["tcp.variant"] += EVIL
    comparison["metric"] += EVIL
    comparison["source"] = EVIL
    comparison["table"] = table
    comparison.to_csv(folder / "comparison.csv", index=False)
    plan = json.loads((folder / "plan.json").read_text())
    for run in plan["runs"]:
        run["params"] = {(EVIL if k == axis else k): v for k, v in run["params"].items()}
    (folder / "plan.json").write_text(json.dumps(plan))
    sides = {f"{side}_{stat}": 1.0 for side in ("lhs", "rhs") for stat in ("mean", "ci_low", "ci_high")}
    ratio = {"ratio": 1.0, "ratio_ci_low": 1.0, "ratio_ci_high": 1.0}
    claim = {"claim": f"{EVIL} one", "metric": "drops", "factor": 1.0, "n": 2, "lhs": EVIL, "rhs": EVIL}
    claim |= {**sides, **ratio, "verdict": "fails", "source": EVIL, "note": EVIL, "origin": "paper"}
    pd.DataFrame([claim]).to_csv(folder / "claims.csv", index=False)
    (folder / "variants" / variant_name).mkdir(parents=True)
    shutil.copy(folder / "comparison.csv", folder / "variants" / variant_name / "comparison.csv")
    _with_points(
        folder, [{"tcp.variant": f"reno{EVIL}", EVIL: 25}, {"tcp.variant": f"tahoe{EVIL}", EVIL: 25}]
    )
    study = replace(
        STUDIES["dumbbell-buffers"],
        name=name,
        title=EVIL,
        notes=EVIL,
        variants=(Variant(variant_name, {EVIL: EVIL}, EVIL),),
        layout=("tcp.variant", EVIL),
        trace_points_by="tcp.variant",
    )
    monkeypatch.setitem(STUDIES, name, study)
    page = build_report(tmp_path / "results").read_text()
    # The only script is the picker's own; no tag of the data's made it through, and every
    # ampersand starts a character reference.
    assert page.count("<script") == 1 and "<i>" not in page and "alert(1)</script>" not in page
    assert not re.search(r"&(?!(#\d+|#x[0-9a-fA-F]+|[A-Za-z]+);)", page)
    e, anchor = escaped(EVIL), escaped(f"study-{name}")
    for where in (
        "<title>congsim report: results</title>",
        f'<section id="{anchor}">',
        f"<h2>{escaped(name)}: {e}</h2>",  # the study's folder and title
        f'<a href="#{anchor}">{escaped(name)}</a></td><td>{e}</td>',  # the summary row
        f'<p class="meta">{e}</p>',  # its notes
        f'<span class="meta">Reference: {e};',
        f"<tr><td>{e} one<br>",  # a claim, its sides, source and note
        f'<span class="meta">{e} vs {e}</span>',
        f'<span class="meta">&ldquo;{e}&rdquo;</span>',
        f'<span class="meta">note: {e}</span>',
        f'<h3 id="{anchor}-table-T-1">{escaped(table)}</h3>',  # a paper-shaped table
        f"<th>tcp.variant</th><th>25 · total_throughput_mbps{e}</th>",  # its headers
        f"<tr><td>tahoe{e}</td>",  # a row label
        f"<th>tcp.variant</th><th>{e}</th><th>metric</th>",  # every value's table: headers
        f"<td>tahoe{e}</td><td>25</td><td>total_throughput_mbps{e}</td>",  # ... and cells
        f"<h3>total_throughput_mbps{e} against the reference</h3>",  # a figure's caption
        f"<b>{escaped(variant_name)}</b> ({e} = {escaped(json.dumps(EVIL))})",  # a variant
        f'<span class="meta">{e} Tables: <a href="evil%3Ci%3E%26study/variants/v%3Ci%3E%261/comparison.csv">',
        f">reno{e}</option>",  # the picker
        f"<h4>tahoe{e}</h4>",
        f"<h3>Total TCP throughput over time: reno{e} (replication 0 of each)</h3>",
        f"<h3>Total throughput over time (tcp.variant = reno{e}, {e} = 25; replication 0)</h3>",
    ):
        assert where in page, where
    # Links to the results' files are escaped URLs that reach them.
    linked = [unquote(html.unescape(h)) for h in re.findall(r'href="([^"#][^"]*)"', page)]
    assert len(linked) == 3 and all((tmp_path / "results" / h).is_file() for h in linked), linked
    targets = set(re.findall(r'id="([^"]+)"', page))
    assert {t for t in re.findall(r'href="#([^"]+)"', page)} <= targets


def test_the_page_names_no_path_of_this_machine(reproduced, tmp_path):
    """The header names the results folder, not its path; a page written elsewhere links to the
    results' tables by a path relative to itself."""
    from congsim.report import build_report

    (tmp_path / "pages").mkdir()
    inside = build_report(reproduced).read_text()
    elsewhere = build_report(reproduced, tmp_path / "pages" / "r.html").read_text()
    for page in (inside, elsewhere):
        assert str(reproduced) not in page and str(reproduced.resolve()) not in page
        assert str(tmp_path) not in page and "pytest-of" not in page
        assert f"Studies reproduced in <code>{reproduced.name}</code>, written " in page
        assert not re.search(r'(href|src)="(/|file:)', page)
    assert re.findall(r'href="([^"#][^"]*\.csv)"', inside) == ["dumbbell-buffers/comparison.csv"]
    linked = re.findall(r'href="([^"#][^"]*\.csv)"', elsewhere)
    assert linked and linked[0].startswith("../") and linked[0].endswith("/dumbbell-buffers/comparison.csv")
    assert all((tmp_path / "pages" / unquote(h)).resolve().is_file() for h in linked)


@pytest.fixture
def picked(reproduced, tmp_path, monkeypatch):
    """A report of a study that traced each of its three configurations."""
    from congsim.report import build_report
    from congsim.studies import STUDIES

    folder = tmp_path / "results" / "dumbbell-buffers"
    shutil.copytree(reproduced / "dumbbell-buffers", folder)
    axis = "links[0].queue.limit_packets"
    _with_points(
        folder,
        [
            {"tcp.variant": "tahoe", axis: 25},
            {"tcp.variant": "reno", axis: 25},
            {"tcp.variant": "reno", axis: 50},
        ],
    )
    monkeypatch.setitem(
        STUDIES, "dumbbell-buffers", replace(STUDIES["dumbbell-buffers"], trace_points_by="tcp.variant")
    )
    return build_report(tmp_path / "results")


def test_the_picker_lists_each_traced_configuration(picked):
    page = picked.read_text()
    anchor = "study-dumbbell-buffers"
    options = re.findall(r'<option value="([^"]+)">([^<]*)</option>', page)
    # Each configuration by its group (tcp.variant) and what sets it apart within the group.
    assert [text for _, text in options] == ["tahoe", "reno: 25", "reno: 50"]
    blocks = re.findall(r'<div class="configuration" id="([^"]+)">\s*<h4>([^<]*)</h4>', page)
    assert blocks == [(value, text) for value, text in options]
    assert [v for v, _ in options] == [f"{anchor}-configuration-{n:03d}" for n in range(3)]
    # Each shows its run's throughput, windows and queue; the group figures sit in the grid
    # above, and the traced run is not drawn twice (it is the first configuration's).
    parts = page.split('<div class="configuration" ')
    assert [part.split("</section>")[0].count("<svg") for part in parts[1:]] == [3, 3, 3]
    assert page.count("<svg") == 2 + 2 + 9, "two metrics, two groups, three figures per configuration"
    for group in ("tahoe", "reno"):
        assert f"<h3>Total TCP throughput over time: {group} (replication 0 of each)</h3>" in page
    # Without scripts the picker stays hidden and every configuration visible; the script is
    # inline.
    assert f'<p class="picker-row" hidden><label for="{anchor}-picker">' in page
    assert page.count("<script>") == 1 and not re.search(r"<script[^>]*src=", page)
    assert f'<a href="#{anchor}-configurations">traced configurations</a>' in page


def test_the_picker_shows_the_chosen_configuration_in_headless_chromium(picked, tmp_path):
    browser = _browser()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [browser, *flags, "--dump-dom", f"file://{picked}"], capture_output=True, text=True, timeout=120
    ).stdout
    # The script ran: the picker shows, and only the first configuration's figures do.
    assert '<p class="picker-row">' in dom
    shown = re.findall(r'<div class="configuration" id="[^"]+-(\d+)"( hidden="")?>', dom)
    assert shown == [("000", ""), ("001", ' hidden=""'), ("002", ' hidden=""')], shown
