"""The claims of the studies: data, as the papers state them, under the one band rule."""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pytest

from congsim.studies import MODULES, STUDIES, declare
from congsim.studies.declare import Metric, band, load_claims, magnitude_band, printed_number

#: Numbers the papers write as words ("can be seven times greater").
NUMBER_WORDS = {"one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "seven": 7.0, "ten": 10.0}


def _numbers(text: str) -> set[float]:
    words = {NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in NUMBER_WORDS}
    return {float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)} | words


def _printed_value(text: str) -> float:
    """A printed number as the paper writes it, without its sign or percent sign."""
    return float(text.strip().removesuffix("%").strip().lstrip("-"))


def test_every_study_module_is_checked():
    assert set(MODULES) == set(STUDIES)
    assert all(MODULES[name].STUDY is study for name, study in STUDIES.items())


def test_no_published_number_in_the_study_modules():
    """A study module declares metrics, variants and notes; its claims, with every number they
    quote or test (bounds, factors, magnitudes, the paper's values), are read from its data file.
    So a module builds no `Claim`, holds no number but a metric's unit scale and a variant's
    setting, and no string of it repeats a number a claim of its study prints."""
    for name, module in MODULES.items():
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        allowed: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("Metric", "Variant"):
                allowed |= {id(n) for n in ast.walk(node)}
            assert not (isinstance(node, ast.Name) and node.id == "Claim"), (name, "builds a Claim")
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and type(node.value) in (int, float):
                assert id(node) in allowed, (name, node.lineno, node.value)
        # Each number a claim of the study prints, as it stands in text ("0.89", "26 %", "121").
        printed = set()
        for text in (p.strip().lstrip("-") for c in STUDIES[name].claims for p in c.printed):
            number = text.removesuffix("%").strip()
            if len(number) > 1:
                percent = r"\s?%" if text.endswith("%") else r"(?![\d.])"
                printed.add(re.compile(rf"(?<![\d.]){re.escape(number)}{percent}"))
        texts = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        for text in texts:
            quoted = {p.pattern for p in printed if p.search(text)}
            assert not quoted, (name, quoted, text)


def test_every_number_a_claim_of_the_paper_tests_is_printed_by_the_paper():
    """No threshold of congsim's own in a claim of the paper: it has no factor, and every number
    it tests (a bound, the sides of a magnitude) is printed in its study's quoted sentences
    (words included: "seven") or in its reference table."""
    for name, study in STUDIES.items():
        sentences = {c.source for c in study.claims if c.source}
        printed_by_paper = set().union(*(_numbers(s) for s in sentences)) if sentences else set()
        printed_by_paper |= {float(row["value"]) for row in study.reference_rows()}
        for claim in study.claims:
            if claim.origin != "paper":
                continue
            assert claim.factor == 1.0, (name, claim.description)
            for text in claim.printed:
                assert _printed_value(text) in printed_by_paper, (name, claim.description, text)
            tested = claim.ratio_between is not None or claim.bound is not None or claim.lhs_bound is not None
            assert not tested or claim.printed or claim.ratio_between == magnitude_band(1.0, 0.0), (
                name,
                claim.description,
            )


def test_every_claim_of_the_paper_records_how_it_reads_its_sentence():
    for name, study in STUDIES.items():
        for claim in study.claims:
            if claim.origin == "paper":
                reading = claim.note[claim.note.index("Reading: ") :]
                assert len(reading) > 60, (name, claim.description)


def test_a_magnitude_follows_the_one_band_rule_of_the_reference_values():
    """A magnitude the paper prints becomes a band by the rule every printed number follows: ±
    the larger of half a unit in its last printed digit and 10 %; where the paper says which way
    it goes, the band stops at 1."""
    fairness = Metric("summary", "jain_index", 1.0, "", upper=1.0)
    for value, unit in ((0.89, 0.01), (121.0, 1.0), (2.0, 1.0), (0.995, 0.001)):
        assert fairness.band(value, unit) == (
            max(band(value, unit / 2)[0], 0),
            min(band(value, unit / 2)[1], 1.0),
        )
    assert printed_number("26 %") == pytest.approx((0.26, 0.005))
    assert printed_number("7") == (7.0, 0.5)
    # "Seven times": 10 % (0.7) is wider than half a unit (0.5).
    assert magnitude_band(7.0, 0.5) == pytest.approx((6.3, 7.7))
    # "Decreases slightly from 0.92 to 0.89": 0.967 ± 10 %, below 1.
    assert magnitude_band(0.89 / 0.92, 0.0, "below") == pytest.approx((0.8707, 1.0), abs=1e-4)
    assert magnitude_band(1.0, 0.0) == pytest.approx((0.9, 1.1))
    with pytest.raises(ValueError, match="direction"):
        magnitude_band(1.0, 0.0, "sideways")


def test_the_claims_the_review_found_lenient_or_wrong_read_as_the_papers_state_them():
    claims = {(name, c.description): c for name, study in STUDIES.items() for c in study.claims}

    def claim(study: str, start: str) -> declare.Claim:
        found = [
            c for (name, description), c in claims.items() if name == study and description.startswith(start)
        ]
        assert len(found) == 1, (study, start)
        return found[0]

    # Wrong: jain1996-buffers tested one round trip at N = 15, where the seed says it is not
    # enough; "not critical" had a 90 % threshold; sisalem restating RED's paper was its claim.
    may_do = claim("jain1996-buffers", "5 sources, no VBR: 1 RTT buffers keep")
    assert may_do.lhs == {"label": "N5 1 RTT"} and may_do.rhs == {"label": "N5 infinite"}
    assert claim("jain1996-buffers", "15 sources, no VBR").lhs_bound == 1.0
    for label in ("1 RTT", "0.5 RTT"):
        not_critical = claim("jain1996-buffers", f"{label} buffers: tail drop's throughput agrees")
        assert not_critical.factor == 1.0 and not_critical.ratio_between == pytest.approx((0.9, 1.1))
    for variant in ("tahoe", "reno"):
        assert claim("sisalem1995", f"{variant}: DropTail is less fair than RED").origin == "check"
    # Lenient: magnitudes tested as directions or with congsim's own margins.
    assert claim("lima2002", "load 0.9: FTP transfers suffer seven times").ratio_between == pytest.approx(
        (6.3, 7.7)
    )
    assert claim("lima2002", "web, load 0.9: reno-lt has 26 % fewer RTOs").ratio_between == pytest.approx(
        (0.666, 0.814)
    )
    fluctuation = claim("koga2000", "newreno: fluctuation leaves the total throughput")
    assert fluctuation.printed == ("77.8", "77.5")
    assert claim("koga2000", "newreno: the hard shaper's flows are fairer").ratio_between == pytest.approx(
        (0.688, 0.841), abs=1e-3
    )
    seed_factor = claim("sisalem1995-multihop", "the seed's 0.975 gives a max-min index under")
    assert seed_factor.bound == 0.89 and seed_factor.ratio_between == pytest.approx((0.0, 0.9))
    unfair = claim("goyal1996", "without FRR, plain UBR's average LAN fairness")
    assert unfair.bound == pytest.approx(0.69) and unfair.ratio_between == pytest.approx((0.9, 1.1))


def test_a_claims_file_is_read_strictly(tmp_path, monkeypatch):
    monkeypatch.setattr(declare, "DATA", tmp_path)
    metrics = {"x": Metric("summary", "x", 1.0, "")}
    entry = '[[claims]]\ndescription = "d {{v}}"\nmetric = "x"\nlhs = {{ a = "{{v}}" }}\n{extra}\n'

    def load(extra: str) -> tuple[declare.Claim, ...]:
        (tmp_path / "c.toml").write_text('[sentences]\ns = "said"\n' + entry.format(extra=extra))
        return load_claims("c.toml", metrics)

    claims = load('origin = "check"\nbound = "2"\neach = [{ v = "p" }, { v = "q" }]')
    assert [(c.description, dict(c.lhs), c.bound) for c in claims] == [
        ("d p", {"a": "p"}, 2.0),
        ("d q", {"a": "q"}, 2.0),
    ]
    paper = load('sentence = "s"\nreading = "r"\nsame = true\neach = [{ v = "p" }]')
    assert (
        paper[0].source == "said"
        and paper[0].note == "Reading: r"
        and paper[0].ratio_between == pytest.approx((0.9, 1.1))
    )
    for extra, error in (
        ('origin = "check"\nbound = 2\neach = [{ v = "p" }]', "numbers as text"),
        ('sentence = "s"\neach = [{ v = "p" }]', "reading"),
        ('sentence = "s"\nreading = "r"\nfactor = "10"\neach = [{ v = "p" }]', "not a factor"),
        ('origin = "check"\nsame = true\npaper_ratio = "7"\neach = [{ v = "p" }]', "one magnitude"),
        ('origin = "check"\nbound = "2"', "nothing fills"),
        ('origin = "check"\nbound = "2"\nwhy_not = "x"\neach = [{ v = "p" }]', "unknown key"),
        ('origin = "check"\nbound = "2"\neach = [{ v = "p" }, { v = "p" }]', "described alike"),
        ('origin = "check"\ndirection = "below"\nbound = "2"\neach = [{ v = "p" }]', "direction"),
    ):
        with pytest.raises(ValueError, match=error):
            load(extra)
    assert math.isinf(
        load('origin = "check"\npaper_value = "0.5"\noutside = "above"\neach = [{ v = "p" }]')[
            0
        ].ratio_between[1]
    )
