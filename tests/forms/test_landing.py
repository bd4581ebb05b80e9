"""A write whose new record appears first in the page its redirect leads to (Spring's pet clinic:
the new pet is only a link on the owner's page), and whose id is also a number the instruction
states: the id is made by the write, so another run's id passes and an old record fails."""

from __future__ import annotations

from pathlib import Path

from rlauto_core.analysis import analyze_offline
from rlauto_core.checkers import score
from rlauto_core.config import RunOptions
from rlauto_core.evidence import build_evidence, slim_evidence
from rlauto_core.forms import landing_outputs, landing_pages
from rlauto_core.importers import import_path
from rlauto_core.judging.selfcheck import golden_attempt
from rlauto_core.package import build_package, invented_values
from rlauto_core.recording import HttpCall
from tests.forms.kit import Browser, recording_zip
from tests.package.corpus_kit import clock
from tests.package.offline import package_offline

SITE = "http://gardens.example"
# 38 is the house number, and, by chance, the id the server gives the new bed
INSTRUCTION = "Add a bed 'Tomatoes' to the garden at 38 Elm Row, then log a 2 litre watering for it."


def garden(bed: str | None, old: str = "20") -> str:
    beds = f'<a href="/gardens/512/beds/{old}/edit">Beans</a>'
    if bed is not None:
        beds += f'<a href="/gardens/512/beds/{bed}/edit">Tomatoes</a>'
    return f'<html><body><h1>Elm Row</h1><a href="/gardens/512/beds/new">Add bed</a>{beds}</body></html>'


def run(seed: str, bed: str, *, watered: str | None = None) -> Browser:
    """Open the garden, add the bed (302 back to the garden, which lists it), water a bed."""
    b = Browser(SITE, clock(2026, 5, 3, 10, 0), seed)
    b.visit("/gardens/512", garden(None))
    b.visit("/gardens/512/beds/new", '<form method="post"><input name="bed[name]"></form>')
    b.submit("/gardens/512/beds", [("bed[name]", "Tomatoes")], status=302, location=f"{SITE}/gardens/512")
    b.visit("/gardens/512", garden(bed))
    target = watered or bed
    b.submit(f"/gardens/512/beds/{target}/waterings", [("litres", "2")], status=302,
             location=f"{SITE}/gardens/512/beds/{target}")  # fmt: skip
    return b


def write(tmp_path: Path, name: str, b: Browser, instruction: str = "") -> Path:
    path = tmp_path / f"{name}.zip"
    path.write_bytes(recording_zip(instruction, SITE, name, b))
    return path


def test_the_page_a_redirect_leads_to_is_found_and_shows_the_ids_below_it(tmp_path: Path) -> None:
    recording = import_path(write(tmp_path, "rec", run("rec", "38")))
    calls = recording.calls
    landed = {calls[r].id: calls[w].id for r, w in landing_pages(calls).items()}
    post = next(c for c in calls if isinstance(c, HttpCall) and c.method == "POST")
    page = next(c for c in calls if c.id in landed and landed[c.id] == post.id)
    assert isinstance(page, HttpCall) and page.path == "/gardens/512"
    # the ids of links below the page's own path; the "Add bed" link and the old bed too
    assert landing_outputs(page) == [("html", "link_ids", ["20", "38"])]


def test_another_write_before_the_get_means_no_landing_page(tmp_path: Path) -> None:
    b = Browser(SITE, clock(2026, 5, 3, 10, 0), "two-writes")
    b.submit("/gardens/512/beds", [("bed[name]", "A")], status=302, location=f"{SITE}/gardens/512")
    b.submit("/gardens/512/beds", [("bed[name]", "B")], status=200, html="<p>ok</p>")
    b.visit("/gardens/512", garden("38"))
    recording = import_path(write(tmp_path, "two", b))
    assert landing_pages(recording.calls) == {}


def test_an_edit_or_a_delete_makes_nothing_its_landing_page_shows(tmp_path: Path) -> None:
    """The garden's edit form lands on the garden page too, showing beds it did not make."""
    b = Browser(SITE, clock(2026, 5, 3, 10, 0), "edit")
    b.submit("/gardens/512/edit", [("garden[name]", "Elm Row")], status=302, location=f"{SITE}/gardens/512")
    b.visit("/gardens/512", garden("38"))
    b.submit("/gardens/512?action=delete", [("confirm", "1")], status=302, location=f"{SITE}/gardens/512")
    b.visit("/gardens/512", garden("38"))
    b.submit(
        "/gardens/512", [("_method", "patch"), ("garden[name]", "Elm")], status=302, location=f"{SITE}/gardens/512"
    )
    b.visit("/gardens/512", garden("38"))
    recording = import_path(write(tmp_path, "edit", b))
    assert landing_pages(recording.calls) == {}
    made = invented_values(recording, build_evidence(recording))
    assert "38" not in made and all(origin.root == "location" for origin in made.values())


def test_an_id_first_shown_by_the_landing_page_is_made_by_the_write_though_the_instruction_states_it(
    tmp_path: Path,
) -> None:
    recording = import_path(write(tmp_path, "rec", run("rec", "38"), INSTRUCTION))
    made = invented_values(recording, build_evidence(recording))
    post = next(c for c in recording.calls if isinstance(c, HttpCall) and c.path == "/gardens/512/beds")
    assert made["38"].call_id == post.id and made["38"].root == "landing"
    assert "20" not in made  # shown before the write: an old bed
    # a model sees it on the write: the page load itself is no significant call
    slim = {c["id"]: c for c in slim_evidence(recording, build_evidence(recording))["calls"]}
    assert slim[post.id]["landing"] == {"page": "/gardens/512", "shows": ["20", "38"]}


def test_a_later_run_with_another_id_passes_and_watering_an_old_bed_fails(tmp_path: Path) -> None:
    source = write(tmp_path, "rec", run("rec", "38"), INSTRUCTION)
    outcome = package_offline(source, RunOptions(), tmp_path / "out")
    package = outcome.package
    assert outcome.passed and package is not None, outcome.error
    made = [r for roles in package.value_roles.values() for f, r in roles.items() if f == "path_params.bedId"]
    assert made and all(r.role == "created" for r in made), made
    check = package.validation.self_check
    assert check is not None and check.golden_full_marks and check.redo_full_marks
    assert check.variants_passed == check.variants_total
    # the trajectory loads the page that shows the new bed, right after the write that made it
    landing = [s for s in package.golden_trajectory if not s.state_changing]
    assert len(landing) == 1 and landing[0].depends_on
    good = score(package, import_path(write(tmp_path, "good", run("later", "44"))))
    assert good.passed and good.score == good.max_score, [r.reason for r in good.rubrics if not r.passed]
    old = score(package, import_path(write(tmp_path, "old_bed", run("later", "44", watered="20"))))
    assert not old.passed


def test_a_draft_that_leaves_the_landing_page_out_gets_it_back(tmp_path: Path) -> None:
    """A model's draft names the writes only: the builder adds the page the create's redirect led to
    (golden trajectory, and the create's subtask) so the package alone replays its golden."""
    recording = import_path(write(tmp_path, "rec", run("rec", "38"), INSTRUCTION))
    evidence = build_evidence(recording)
    draft = analyze_offline(recording, evidence)
    page = next(s for s in draft.golden_call_ids if not any(e.id == s and e.state_changing for e in evidence.calls))
    writes = [cid for cid in draft.golden_call_ids if cid != page]
    groups = [g.model_copy(update={"call_ids": [c for c in g.call_ids if c != page]}) for g in draft.groups]
    draft = draft.model_copy(update={"golden_call_ids": writes, "groups": [g for g in groups if g.call_ids]})
    package = build_package(recording, evidence, draft)
    assert [s.call_id for s in package.golden_trajectory] == [writes[0], page, *writes[1:]]
    golden, problems = golden_attempt(package)
    assert not problems and page in [c.id for c in golden.calls]
    report = score(package, golden)
    assert report.score == report.max_score, [r.reason for r in report.rubrics if not r.passed]
