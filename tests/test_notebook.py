"""Results in a notebook (issue 33): the HTML views of a scenario, a run and a sweep, and the
plot helpers `results.plot.cwnd()`, `.queue()`, `.throughput()`."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import pytest
from matplotlib.axes import Axes

import congsim
import congsim.sweep
from congsim.results import Results

matplotlib.use("Agg")  # no window, whatever the machine has

#: Names that are HTML: a view that does not escape them shows a bold tag or breaks the page.
FLOW = "<b>&ftp"
ROUTER = "r<i>&"

#: Two flows through a 5-packet bottleneck buffer, so that it drops; 2 s run in milliseconds.
TINY = f"""
name = "tiny"
nodes = ["src", "{ROUTER}", "dst"]
[simulation]
duration = "2s"
seed = 1
[[links]]
from = "src"
to = "{ROUTER}"
rate = "100Mbps"
delay = "1ms"
[[links]]
from = "{ROUTER}"
to = "dst"
rate = "10Mbps"
delay = "10ms"
queue = {{ limit_packets = 5 }}
[tcp]
window = 64
[[flows]]
name = "{FLOW}"
from = "src"
to = "dst"
[[flows]]
name = "_bg"
from = "src"
to = "dst"
start = "0.5s"
"""
SERIES = '\n[metrics]\nseries_interval = "50ms"\n'


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def results() -> Results:
    return congsim.run(congsim.loads(TINY + SERIES))


@pytest.fixture(scope="module")
def no_series() -> Results:
    return congsim.run(congsim.loads(TINY))


class Page(HTMLParser):
    """The tags and text of an HTML fragment, as a browser reads them."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def assert_escaped(html: str, *names: str) -> Page:
    """Each of `names` is text on the page, and none of their markup became a tag."""
    page = Page(html)
    for name in names:
        assert name not in html, f"{name!r} is in the HTML unescaped"
        assert any(name in text for text in page.text), f"{name!r} is not shown"
    assert not {"b", "i"} & set(page.tags)
    return page


# The HTML views ------------------------------------------------------------------------------


def test_a_scenario_shows_its_counts_links_and_flows_escaped():
    html = congsim.loads(TINY, overrides={"tcp.variant": "newreno"})._repr_html_()
    page = assert_escaped(html, FLOW, f"src->{ROUTER}", f"{ROUTER}->dst")
    text = "".join(page.text)
    assert "tiny" in text and "2s simulated" in text
    assert "3 nodes, 4 links, 2 TCP flows" in text
    assert "tcp.variant = 'newreno'" in text
    # The bottleneck, with its queue's limit; the reverse direction shares it (duplex).
    assert html.count("<td>10Mbps</td><td>10ms</td><td>droptail, 5 pkts</td>") == 2
    assert html.count("<td>100Mbps</td><td>1ms</td><td>droptail, default limit</td>") == 2
    assert f"src → {ROUTER} → dst" in text
    assert page.tags.count("tr") == 1 + 4 + 1 + 2  # headers, links, headers, flows


def test_results_show_the_run_its_flows_and_the_links_that_dropped(results):
    html = results._repr_html_()
    page = assert_escaped(html, FLOW, f"{ROUTER}->dst")
    text = "".join(page.text)
    assert "scenario tiny" in text and "2 s simulated" in text
    goodput = results.summary["total_goodput_bps"].iloc[0] / 1e6
    assert f"total goodput {goodput:.4g} Mb/s" in text
    assert "_bg" in text
    assert "Links with drops (1 of 4)" in text
    assert page.tags.count("svg") == 1
    # The flows table and the plot's legend (SVG text) name the flow.
    assert html.count("&lt;b&gt;&amp;ftp") == 2
    assert len(html) < 20_000


def test_results_without_series_have_no_plot(no_series):
    html = no_series._repr_html_()
    assert "<svg" not in html
    assert_escaped(html, FLOW)


def test_a_long_flows_table_is_cut_with_a_note():
    text = TINY.replace('name = "_bg"', 'name = "many"\ncount = 14')
    scenario = congsim.loads(text + SERIES)
    for html in (scenario._repr_html_(), congsim.run(scenario)._repr_html_()):
        assert "… 5 more flows" in html
        assert Page(html).tags.count("tr") < 30
    # The plot draws the first 8 flows only: the 9th is in the table, not in the legend.
    html = congsim.run(scenario)._repr_html_()
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert "&lt;b&gt;&amp;ftp" in svg and ">many.6<" in svg and "many.7" not in svg
    assert ">many.7<" in html


def emptied(results: Results) -> Results:
    """`results` with every table's columns cut to no rows."""
    empty = {
        name: {
            column: (kind, bytearray(), [] if categories is not None else None)
            for column, (kind, _, categories) in table.items()
        }
        for name, table in results._encoded.items()
    }
    return Results(empty)


def test_the_view_of_empty_tables_does_not_raise(results):
    for run in (emptied(results), Results({})):
        html = run._repr_html_()
        assert "congsim results" in html and "0 flows" in html and "<svg" not in html
    assert "0.25 s of wall time" in Results({}, wall_s=0.25)._repr_html_()


def test_a_plot_that_fails_leaves_the_tables(results, monkeypatch):
    def broken(_: Results) -> None:
        raise RuntimeError("no <fonts>")

    monkeypatch.setattr("congsim.plot.cwnd_svg", broken)
    html = results._repr_html_()
    assert "(no cwnd plot: RuntimeError: no &lt;fonts&gt;)" in html
    assert_escaped(html, FLOW)


def test_a_sweep_shows_its_statistics_with_confidence_intervals(tmp_path: Path):
    plan = congsim.sweep.plan_of(
        congsim.loads(TINY.replace('"2s"', '"1s"')),
        axes={"tcp.variant": ["reno", "tahoe"]},
        fixed={"simulation.start_jitter": "100ms"},  # replications differ
        replications=2,
        name="a<b>",
    )
    outcome = congsim.sweep.run_sweep(plan, tmp_path / "store", workers=1)
    html = outcome._repr_html_()
    page = assert_escaped(html, "a<b>", FLOW)
    text = "".join(page.text)
    assert "4 runs" in text and "95 % CI" in text
    rows = [r for r in html.split("<tr>") if "total_goodput_bps" in r]
    assert [r.split("</td>")[0] for r in rows] == ["<td>reno", "<td>tahoe"]
    assert all("…" in r for r in rows)  # the interval
    # Metrics equal in every run are named once, not listed per point.
    assert "summary.duration_s = 1" in text
    nothing = congsim.sweep.SweepOutcome(plan, tmp_path / "none", plan.runs(), {}, 0)
    assert "No finished runs" in nothing._repr_html_()


# The plot helpers ----------------------------------------------------------------------------


def legend(ax: Axes) -> list[str]:
    box = ax.get_legend()
    return [] if box is None else [t.get_text() for t in box.get_texts()]


def test_cwnd_draws_a_line_per_flow_with_units(results):
    ax = results.plot.cwnd()
    assert isinstance(ax, Axes)
    assert len(ax.lines) == 2
    assert ax.get_xlabel() == "time (s)" and ax.get_ylabel() == "cwnd (segments)"
    # A name starting with `_` would be left out of a legend made from the labels.
    assert legend(ax) == [FLOW, "_bg"]
    only = results.plot.cwnd(flows="_bg")
    assert len(only.lines) == 1 and legend(only) == ["_bg"]


def test_throughput_is_in_megabits_per_second(results):
    _, given = plt.subplots()
    ax = results.plot.throughput(flows=[FLOW], ax=given)
    assert ax is given and len(ax.lines) == 1
    assert ax.get_ylabel() == "throughput (Mb/s)" and ax.get_xlabel() == "time (s)"
    top = max(ax.lines[0].get_ydata())
    assert 1.0 < top <= 10.0  # the 10 Mbps bottleneck


def test_queue_draws_the_links_that_queued_by_default(results):
    ax = results.plot.queue()
    assert ax.get_ylabel() == "queue (packets)" and ax.get_xlabel() == "time (s)"
    assert f"{ROUTER}->dst" in legend(ax)
    assert "dst->" + ROUTER not in legend(ax)  # the ACKs' direction never queues
    assert len(ax.lines) == len(legend(ax)) < 4
    every = results.links["link"].tolist()
    assert len(results.plot.queue(links=every).lines) == 4
    series = results.link_series
    queued = series[series["link"] == f"{ROUTER}->dst"]
    (line,) = results.plot.queue(links=f"{ROUTER}->dst").lines
    assert line.get_xdata().tolist() == queued["time_s"].tolist()
    assert line.get_ydata().tolist() == queued["queue_packets"].tolist()


@pytest.mark.parametrize(
    ("plot", "table"), [("cwnd", "flow_series"), ("throughput", "flow_series"), ("queue", "link_series")]
)
def test_a_missing_series_names_it_and_the_setting_that_records_it(no_series, plot, table):
    with pytest.raises(ValueError, match=rf"plot\.{plot}\(\) needs the {table} table") as e:
        getattr(no_series.plot, plot)()
    assert "[metrics] series_interval" in str(e.value)


def test_an_unknown_flow_or_link_is_named(results):
    with pytest.raises(
        ValueError, match="no flow 'nope' in the flow_series table; its flows are: '<b>&ftp', '_bg'"
    ):
        results.plot.cwnd(flows=["nope"])
    with pytest.raises(ValueError, match="no link 'a->b'"):
        results.plot.queue(links="a->b")
