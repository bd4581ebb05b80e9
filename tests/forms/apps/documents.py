"""A document library (Rails, no Turbo): upload a signed contract to an account with a
multipart form (title, visibility, the file), then share the new document with a person.

The upload is answered `302 Found` to `/accounts/311/documents/7781`: the document's id exists
only there, and the share form posts to it. The file's bytes travel in the multipart body; the
evidence keeps its name, type, size and sha256 only.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.forms.kit import Browser, Upload, recording_zip, token
from tests.package.corpus_kit import Clock, clock

SITE = "https://files.contoso-legal.example"
TITLE = "MSA 2026 (signed)"
SHARE_WITH = "legal@acme.example"
INSTRUCTION = (
    f"Upload acme-msa-signed.pdf to the Acme Corp account as '{TITLE}' with Internal visibility, "
    f"then share it with {SHARE_WITH}."
)
VISIBILITY = {"private": "Only me", "internal": "Internal", "public": "Anyone with the link"}
ASSETS = ("/assets/application-0d1e.css", "/assets/application-77aa.js")


def pdf(label: str, pages: int) -> bytes:
    """A small ASCII PDF (the corpus is text): the same label and pages give the same bytes."""
    body = "".join(f"{n} 0 obj << /Type /Page /Contents ({label} page {n}) >> endobj\n" for n in range(1, pages + 1))
    return f"%PDF-1.4\n{body}trailer << /Root 1 0 R >>\n%%EOF".encode("ascii")


SIGNED = Upload("acme-msa-signed.pdf", "application/pdf", pdf("Acme MSA 2026 signed", 40))
DRAFT = Upload("acme-msa-draft.pdf", "application/pdf", pdf("Acme MSA 2026 draft", 38))
# an unsigned copy under the signed file's name, of the same size: only the bytes (sha256) differ
UNSIGNED_COPY = Upload(SIGNED.filename, "application/pdf", pdf("Acme MSA 2026 unsign", 40))


def layout(title: str, csrf: str, body: str) -> str:
    return f"""<!DOCTYPE html><html><head><title>{title} | Contoso Files</title>
<meta name="csrf-param" content="authenticity_token" /><meta name="csrf-token" content="{csrf}" />
<link rel="stylesheet" href="/assets/application-0d1e.css" /></head>
<body><nav><a href="/accounts">Accounts</a> <a href="/accounts/311">Acme Corp</a></nav>{body}
<script src="/assets/application-77aa.js"></script></body></html>
"""


def new_document(csrf: str, form_token: str) -> str:
    options = "".join(f'<option value="{v}">{label}</option>' for v, label in VISIBILITY.items())
    form = f"""<form enctype="multipart/form-data" action="/accounts/311/documents" accept-charset="UTF-8" method="post">
<input type="hidden" name="authenticity_token" value="{form_token}" autocomplete="off" />
<input type="text" name="document[title]" id="document_title" />
<select name="document[visibility]" id="document_visibility">{options}</select>
<input type="file" name="document[file]" id="document_file" />
<input type="submit" name="commit" value="Upload" /></form>"""
    return layout("New document", csrf, form)


def document_page(csrf: str, form_token: str, doc_id: str, title: str) -> str:
    form = f"""<h1 id="document_{doc_id}">{title}</h1>
<form action="/accounts/311/documents/{doc_id}/shares" accept-charset="UTF-8" method="post">
<input type="hidden" name="authenticity_token" value="{form_token}" autocomplete="off" />
<input type="email" name="share[email]" /><select name="share[permission]"><option value="view">Can view</option>
<option value="comment">Can comment</option></select><input type="submit" name="commit" value="Share" /></form>"""
    return layout(title, csrf, form)


@dataclass
class Run:
    clock: Clock
    seed: str
    doc_id: str
    share_id: str


def play(run: Run, upload: Upload | None, visibility: str, share: bool) -> Browser:
    b = Browser(SITE, run.clock, run.seed, cookie_name="_contoso_files_session")
    csrf = token(f"{run.seed}/csrf", 88)
    b.visit("/accounts/311/documents", layout("Documents", csrf, '<a href="/accounts/311/documents/new">Upload</a>'),
            assets=ASSETS)  # fmt: skip
    b.visit("/accounts/311/documents/new", new_document(csrf, b.fresh("form")), assets=ASSETS)
    if upload is None:
        return b
    doc = run.doc_id
    fields: list[tuple[str, str | Upload]] = [("authenticity_token", b.fresh("form")), ("document[title]", TITLE),
                                              ("document[visibility]", visibility), ("document[file]", upload),
                                              ("commit", "Upload")]  # fmt: skip
    b.submit("/accounts/311/documents", fields, status=302, location=f"{SITE}/accounts/311/documents/{doc}",
             boundary=f"----WebKitFormBoundary{token(run.seed + '/boundary', 16)}")  # fmt: skip
    b.visit(f"/accounts/311/documents/{doc}", document_page(csrf, b.fresh("form"), doc, TITLE), assets=ASSETS)
    if share:
        b.submit(f"/accounts/311/documents/{doc}/shares",
                 [("authenticity_token", b.fresh("form")), ("share[email]", SHARE_WITH),
                  ("share[permission]", "view"), ("commit", "Share")],
                 status=302, location=f"{SITE}/accounts/311/documents/{doc}#share-{run.share_id}")  # fmt: skip
        b.visit(f"/accounts/311/documents/{doc}", document_page(csrf, b.fresh("form"), doc, TITLE), assets=ASSETS)
    return b


RECORDED = Run(clock(2026, 5, 14, 8, 55), "files-recorded", "7781", "4410")


def later() -> Run:
    return Run(clock(2026, 5, 21, 13, 20), "files-later", "7790", "4417")


ATTEMPTS = {
    "good": (SIGNED, "internal", True),
    "wrong_option": (SIGNED, "public", True),  # another visibility
    "wrong_content": (DRAFT, "internal", True),  # the unsigned draft uploaded instead
    "missing_write": (SIGNED, "internal", False),  # never shared
    "wrong_file": (UNSIGNED_COPY, "internal", True),  # same name and size, other bytes
}


def build() -> tuple[bytes, dict[str, bytes]]:
    recording = recording_zip(INSTRUCTION, SITE, "rec_files_acme_msa", play(RECORDED, SIGNED, "internal", True))
    attempts = {kind: recording_zip("", SITE, f"attempt_{kind}", play(later(), *script))
                for kind, script in ATTEMPTS.items()}  # fmt: skip
    attempts["empty"] = recording_zip("", SITE, "attempt_empty", play(later(), None, "internal", False))
    return recording, attempts
