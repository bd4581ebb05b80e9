"""Issue 28's "the recording made three writes, the package checks two", per recording of the rewards
corpora, measured through the CLI a user runs.

Run: `python bench/bench_rewards_writes.py [--corpus rewards rewards_heldout]`. For each corpus it
packages every recording with `rlauto package DIR --out TMP --json` (one process, storage in a
temporary folder), runs `rlauto validate --json` on each package (the exported ZIP, or the
package's task-package.json when it was not exported), then scores the recording itself against
its package and compares the calls its rubrics matched with the corpus's ground truth
(`truth/<app>.json`, written by the simulators: every write of the recording and what it was).
Prints one row per recording:
- `verdict`: the package's verdict (`rlauto package`), and the judge's verdict `validate` printed;
- `writes`: successful writes the recording made (truth), and how many of them are required;
- `checked`: required writes some rubric's call checker matched;
- `excluded but checked`: writes the truth excludes (a failed try, UI state, a heartbeat, a side
  call) that a rubric requires (a good attempt that leaves them out loses points);
- `self-check`: golden full marks, mutants caught, valid variants at full marks (validate);
- `attempts`: good attempts at full marks, wrong attempts failing, scored on the same package (a
  wrong attempt that fails where the good ones fail too shows nothing about the wrong one).
Exit 0; it measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rlauto_core.checkers import score
from rlauto_core.checkers.dsl import CALL_KINDS
from rlauto_core.importers import import_path
from rlauto_core.package import load_package
from tests.package.corpora import CORPORA, cases, is_good

RLAUTO = Path(sys.executable).parent / "rlauto"


def _run(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    done = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    return done.returncode, done.stdout


def measure(corpus: str) -> list[dict[str, Any]]:
    recordings, _ = CORPORA[corpus]
    truth_dir = recordings.parent / "truth"
    attempts = {case.name: case.attempts for case in cases(corpus)}
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        storage = work / "storage"
        env = {**os.environ, "RLAUTO_STORAGE_URL": storage.as_uri()}
        _, out = _run([str(RLAUTO), "package", str(recordings), "--out", str(work / "out"), "--json"], env, work)
        outcomes = {Path(o["source"]).name: o for o in json.loads(out)}
        for source in sorted(p for p in recordings.iterdir() if p.suffix == ".zip"):
            outcome = outcomes.get(source.name, {})
            exported = work / "out" / f"{source.stem}.task-package.zip"
            package_file = exported if exported.is_file() else storage / str(outcome.get("package_path") or "missing")
            row: dict[str, Any] = {
                "recording": source.stem,
                "verdict": outcome.get("verdict"),
                "score": outcome.get("total_score"),
            }
            if not package_file.is_file():
                row["error"] = outcome.get("error") or "no package written"
                rows.append(row)
                continue
            code, text = _run([str(RLAUTO), "validate", str(package_file), "--json"], env, work)
            report = json.loads(text) if text.strip().startswith("{") else {}
            row["validate"] = {"exit": code, "judge": (report.get("judge") or {}).get("verdict"),
                               "golden_full_marks": report.get("golden_full_marks"),
                               "mutants": f"{report.get('mutants_caught')}/{report.get('mutants_total')}",
                               "variants": f"{report.get('variants_passed')}/{report.get('variants_total')}",
                               "problems": report.get("problems", [])}  # fmt: skip
            truth = json.loads((truth_dir / f"{source.stem}.json").read_text())
            package = load_package(package_file)
            graded = score(package, import_path(source))
            matched = {cid for r in graded.rubrics if package.rubric_checkers.get(r.checker_key or "", {}).get("kind") in CALL_KINDS
                       for cid in r.matched_call_ids}  # fmt: skip
            # a bulk or a GraphQL batch is one call per item once imported (`r2-op1`...): the recorded
            # call is checked when a rubric matched any of its items
            matched |= {cid.rsplit("-op", 1)[0] for cid in matched if "-op" in cid}
            required = [w for w in truth["writes"] if w["reason"] == "required"]
            row["writes"] = truth["successful_writes"]
            row["required"] = len(required)
            row["checked"] = sum(w["call"] in matched for w in required)
            row["unchecked"] = [f"{w['call']} {w['what']}" for w in required if w["call"] not in matched]
            row["excluded_but_checked"] = [f"{w['call']} {w['what']} ({w['reason']})" for w in truth["writes"]
                                           if w["reason"] != "required" and w["call"] in matched]  # fmt: skip
            row["rubrics"] = len(package.task.rubrics)
            good, wrong = [], []
            for kind, path in attempts[source.name].items():
                if kind == "empty":
                    continue
                report = score(package, import_path(path))
                full = report.passed and report.score == package.max_score
                (good if is_good(kind) else wrong).append((kind, full if is_good(kind) else not report.passed))
            row["good"] = f"{sum(ok for _, ok in good)}/{len(good)}"
            row["wrong"] = f"{sum(ok for _, ok in wrong)}/{len(wrong)}"
            row["misses"] = [f"{k} below full marks" for k, ok in good if not ok] + [
                f"{k} passes" for k, ok in wrong if not ok
            ]
            rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", default=["rewards", "rewards_heldout"])
    args = parser.parse_args()
    for corpus in args.corpus:
        print(f"== {corpus}")
        print(
            f"  {'recording':20} {'verdict':16} {'validate':22} {'writes':>6} {'required':>8} {'checked':>7}  self-check"
        )
        for row in measure(corpus):
            if "error" in row:
                print(f"  {row['recording']:20} {row['verdict']!s:16} {row['error']}")
                continue
            v = row["validate"]
            verdict = f"{row['verdict']} {row['score']}/12"
            checked = f"exit {v['exit']} {v['judge']}"
            print(f"  {row['recording']:20} {verdict:16} {checked:22} {row['writes']:>6} {row['required']:>8} {row['checked']:>7}  "
                  f"golden {'full' if v['golden_full_marks'] else 'NOT full'}, mutants {v['mutants']}, variants {v['variants']}, rubrics {row['rubrics']}")  # fmt: skip
            print(f"      attempts: good at full marks {row['good']}, wrong failing {row['wrong']}"
                  + (f" ({'; '.join(row['misses'])})" if row["misses"] else ""))  # fmt: skip
            for what in row["unchecked"]:
                print(f"      required write no rubric checks: {what}")
            for what in row["excluded_but_checked"]:
                print(f"      excluded write a rubric requires: {what}")
            for problem in v["problems"]:
                print(f"      validate problem: {problem}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
