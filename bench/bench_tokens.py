"""Prompt size of slim vs full evidence, per example recording, as the analyzer would receive it.

The baseline is measured in the same run: the full evidence (every call, redacted, bodies whole)
of the same recording. For each example this prints characters and a token estimate of
(a) the evidence alone and (b) the whole analyzer prompt (system + user) built with slim vs
full evidence, the slim/full ratio, the noise share, and whether every significant call is
still in the slim view. Target: slim <= 25% of full on the noisy examples.

Run: python bench/bench_tokens.py [DIR]   (default: examples/recordings)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rlauto_core.analysis.model import draft_view
from rlauto_core.analysis.offline import analyze_offline
from rlauto_core.evidence import build_evidence, full_evidence, slim_evidence
from rlauto_core.importers import import_path
from rlauto_core.prompts import analyzer_system_prompt, analyzer_user_prompt
from rlauto_core.rules import run_rules

TARGET = 0.25
# An example is "noisy" when at least a third of its recorded calls are filtered out as noise.
NOISY_SHARE = 1 / 3


def token_estimate(text: str) -> int:
    """About 4 ASCII characters per token (JSON-heavy English), one token per other character (CJK)."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return round(ascii_chars / 4 + (len(text) - ascii_chars))


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def measure(path: Path) -> dict[str, Any]:
    recording = import_path(path)
    evidence = build_evidence(recording)
    flags = run_rules(recording, evidence, "echo-05061347")
    draft = draft_view(analyze_offline(recording, evidence, flags))
    slim, full = slim_evidence(recording, evidence), full_evidence(recording, evidence)
    system = analyzer_system_prompt(evidence.mode)

    def prompt(view: dict[str, Any]) -> str:
        user = analyzer_user_prompt(
            slim_evidence=view, flags=[f.model_dump(mode="json") for f in flags], draft=draft,
            memory="", judge_feedback="", user_feedback="", iteration=1, max_iterations=5,
        )  # fmt: skip
        return system + user

    shown = {c.get("ref", c["id"]) for c in slim["calls"]}
    significant = [c.id for c in evidence.calls if c.significant]
    noise = sum(1 for c in evidence.calls if not c.significant)
    slim_text, full_text = compact(slim), compact(full)
    slim_prompt, full_prompt = prompt(slim), prompt(full)
    return {
        "example": path.name,
        "mode": evidence.mode.value,
        "calls": len(evidence.calls),
        "noise_share": noise / len(evidence.calls) if evidence.calls else 0.0,
        "evidence_chars": (len(slim_text), len(full_text)),
        "evidence_tokens": (token_estimate(slim_text), token_estimate(full_text)),
        "prompt_tokens": (token_estimate(slim_prompt), token_estimate(full_prompt)),
        "significant_kept": all(cid in shown for cid in significant),
    }


def main(folder: Path) -> int:
    paths = sorted(p for p in folder.iterdir() if p.suffix in (".zip", ".har"))
    rows = [measure(p) for p in paths]
    header = (
        f"{'example':<30} {'mode':<4} {'calls':>5} {'noise':>6} {'slim ch':>8} {'full ch':>8} {'ratio':>6} "
        f"{'slim tok':>8} {'full tok':>8} {'prompt s/f tok':>15} {'p.ratio':>7} {'sig kept':>8}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        (sc, fc), (st, ft), (sp, fp) = r["evidence_chars"], r["evidence_tokens"], r["prompt_tokens"]
        print(
            f"{r['example']:<30} {r['mode']:<4} {r['calls']:>5} {r['noise_share']:>6.0%} {sc:>8} {fc:>8} "
            f"{sc / fc:>6.1%} {st:>8} {ft:>8} {f'{sp}/{fp}':>15} {sp / fp:>7.1%} {'yes' if r['significant_kept'] else 'NO':>8}"
        )
    noisy = [r for r in rows if r["noise_share"] >= NOISY_SHARE]
    total_slim = sum(r["evidence_chars"][0] for r in rows)
    total_full = sum(r["evidence_chars"][1] for r in rows)
    print()
    print(f"all examples: slim evidence is {total_slim / total_full:.1%} of full ({total_slim}/{total_full} chars)")
    met = [r for r in noisy if r["evidence_chars"][0] / r["evidence_chars"][1] <= TARGET]
    print(
        f"noisy examples (>= {NOISY_SHARE:.0%} of calls are noise): {len(met)}/{len(noisy)} at or under the "
        f"{TARGET:.0%} target: " + ", ".join(
            f"{r['example']} {r['evidence_chars'][0] / r['evidence_chars'][1]:.1%}" for r in noisy
        )
    )  # fmt: skip
    kept = all(r["significant_kept"] for r in rows)
    print(f"every significant call kept in the slim view: {'yes' if kept else 'NO'}")
    return 0 if kept else 1


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("examples/recordings")))
