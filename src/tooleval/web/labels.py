"""Human labels entered on a row page of the viewer (``tooleval view --allow-labels``).

The viewer is read-only unless it was started with ``--allow-labels``: only then
does a row page carry the label form (keys ``p`` pass, ``f`` fail, a note
field) and does ``POST /runs/{id}/rows/{index}/labels`` store anything. A
viewer without the flag answers that address with 403 and shows no form.

A write must come from the viewer's own page: the ``Host`` guard of
:mod:`tooleval.web.app` applies, an ``Origin`` header (when the browser sends
one) must name the viewer too, and the form carries a token made when the
viewer started (a page of another site cannot read it). A label goes to the
store's ``labels`` table (:class:`tooleval.store.labels.RunLabels`); the row's
stored results never change.
"""

import getpass
import hmac
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tooleval.errors import InputError, StoreError
from tooleval.report.html import Safe, el, frag, href, void
from tooleval.store.records import Label, RowRecord, RunInfo

__all__ = ["LabelWriting", "label_section", "register_label_routes"]

# A form holds a metric name, a verdict, a note and the token: 64 KiB is plenty.
_MAX_BODY = 64 * 1024
_MAX_NOTE = 2000
_VERDICTS = {"pass": True, "fail": False}


@dataclass(frozen=True, slots=True)
class LabelWriting:
    """A viewer that may write labels: its form token and the name labels are stored under."""

    token: str
    labeller: str

    @classmethod
    def start(cls) -> "LabelWriting":
        """A fresh token for this viewer process; the labeller is the user running it."""
        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = "someone"
        return cls(secrets.token_urlsafe(32), f"{user} (viewer)")


def _action(run_id: str, index: int) -> Any:
    return href("/runs", run_id, "rows", index, "labels")


def _metrics(info: RunInfo, record: RowRecord) -> list[str]:
    """The metrics a label on this row can be for: the row's results, else the run's."""
    return list(dict.fromkeys([r.metric for r in record.results] or list(info.summaries)))


def label_section(
    store: Any, info: RunInfo, record: RowRecord, writing: LabelWriting | None
) -> Safe | None:
    """The row's labels, and (in a viewer that may write) the form that sets one."""
    labels = [] if getattr(store, "labels", None) is None else _row_labels(store, info, record)
    if writing is None and not labels:
        return None
    shown = el(
        "ul",
        [
            el(
                "li",
                el("strong", f"{label.metric}: {'pass' if label.passed else 'fail'}"),
                f" — {label.note}" if label.note else None,
                el(
                    "span", f" ({label.labeller or 'unknown'}, {label.labelled_at})", class_="muted"
                ),
                class_=f"label label-{'pass' if label.passed else 'fail'}",
                data_metric=label.metric,
            )
            for label in labels
        ],
        id="row-labels",
    )
    metrics = _metrics(info, record)
    form = None
    if writing is not None and metrics:
        form = el(
            "form",
            void("input", type="hidden", name="token", value=writing.token),
            el(
                "label",
                "metric ",
                el("select", [el("option", m, value=m) for m in metrics], name="metric"),
            ),
            " ",
            el(
                "label",
                "note ",
                void("input", type="text", name="note", id="label-note", maxlength=_MAX_NOTE),
            ),
            " ",
            el("button", "pass (p)", type="submit", name="verdict", value="pass", id="label-pass"),
            el("button", "fail (f)", type="submit", name="verdict", value="fail", id="label-fail"),
            el("button", "clear", type="submit", name="verdict", value="clear", id="label-clear"),
            method="post",
            action=_action(info.id, record.index),
            id="label-form",
        )
    hint = (
        "keys: p pass, f fail (the label goes to the store; the row's results stay as scored)"
        if form is not None
        else "labels are read-only here: start the viewer with --allow-labels to add some"
    )
    return frag(
        el("h2", "Labels", id="labels"),
        shown if labels else el("p", "No label yet.", class_="muted"),
        form,
        el("p", hint, class_="muted small"),
    )


def _row_labels(store: Any, info: RunInfo, record: RowRecord) -> list[Label]:
    return [label for label in store.labels.get_labels(info.id) if label.row_index == record.index]


def _same_origin(origin: str | None, site: str | None, host: str | None) -> bool:
    """The browser's own word that the form came from this viewer's page.

    ``Sec-Fetch-Site`` (sent by current browsers) must be ``same-origin``; an
    ``Origin`` must name the host the request was addressed to (the viewer's
    ``no-referrer`` policy makes a browser send ``null`` for its own forms,
    which then rests on ``Sec-Fetch-Site`` and the form token).

    >>> _same_origin("http://127.0.0.1:8765", "same-origin", "127.0.0.1:8765")
    True
    >>> _same_origin("http://evil.example", "cross-site", "127.0.0.1:8765")
    False
    """
    if site is not None and site != "same-origin":
        return False
    if origin is None or origin == "null":
        return True
    return bool(host) and urlsplit(origin).netloc.lower() == str(host).strip().lower()


def parse_label_form(body: bytes, info: RunInfo, record: RowRecord) -> tuple[str, bool | None, str]:
    """The metric, verdict (None: clear the label) and note of a posted label form.

    >>> from tooleval.model import Result, Sample
    >>> info = RunInfo("r", "n", "t", "finished")
    >>> row = RowRecord("r", 0, "a", Sample(input="x"), results=[Result.scored("f1", 1.0, reason="")])
    >>> parse_label_form(b"metric=f1&verdict=fail&note=wrong+tool&token=t", info, row)
    ('f1', False, 'wrong tool')
    """
    if len(body) > _MAX_BODY:
        raise InputError(f"a label form is at most {_MAX_BODY} bytes", field="body")
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError:
        raise InputError("the label form is not UTF-8 text", field="body") from None
    metric = (fields.get("metric") or [""])[0]
    allowed = _metrics(info, record)
    if metric not in allowed:
        raise InputError(
            f"unknown metric {metric!r} for row {record.index}; expected one of "
            f"{', '.join(allowed) or '(none)'}",
            field="metric",
        )
    verdict = (fields.get("verdict") or [""])[0]
    if verdict not in (*_VERDICTS, "clear"):
        raise InputError(f"expected verdict pass, fail or clear, got {verdict!r}", field="verdict")
    note = (fields.get("note") or [""])[0].strip()
    if len(note) > _MAX_NOTE:
        raise InputError(f"a note is at most {_MAX_NOTE} characters", field="note")
    if "\x00" in note:
        raise InputError("a note cannot hold NUL characters", field="note")
    return metric, _VERDICTS.get(verdict), note


def register_label_routes(app: Any, store: Any, writing: LabelWriting | None) -> None:
    """``POST /runs/{id}/rows/{index}/labels``: 403 unless the viewer may write labels."""
    from fastapi import Request
    from fastapi.responses import RedirectResponse

    from tooleval.analysis.aggregates import cached_run
    from tooleval.web.routes import resolve_ref

    def refuse(message: str) -> Any:
        from tooleval.web.app import _error

        return _error(403, "Not allowed", message)

    # No ``from __future__ import annotations`` here: FastAPI reads ``Request`` from the signature.
    @app.post("/runs/{run_id}/rows/{index}/labels")
    async def set_label(request: Request, run_id: str, index: int) -> Any:
        if writing is None or getattr(store, "labels", None) is None:
            return refuse(
                "This viewer is read-only: start it with `tooleval view --allow-labels` "
                "to enter labels."
            )
        headers = request.headers
        if not _same_origin(
            headers.get("origin"), headers.get("sec-fetch-site"), headers.get("host")
        ):
            return refuse("A label must be sent from this viewer's own page.")
        body = await request.body()
        token = (parse_qs(body[:_MAX_BODY].decode("utf-8", "replace")).get("token") or [""])[0]
        if not hmac.compare_digest(token.encode(), writing.token.encode()):
            return refuse("The form is out of date (the viewer was restarted): reload the page.")
        info = cached_run(store, resolve_ref(store, run_id))
        if not 0 <= index < 2**63:
            raise StoreError(f"run {info.id} has no row {index}", row=None)
        record = store.get_row(info.id, index)
        metric, passed, note = parse_label_form(body, info, record)
        if passed is None:
            store.labels.delete_labels(info.id, metric=metric, rows=[index])
        else:
            label = Label(index, metric, passed, note=note or None, labeller=writing.labeller)
            store.labels.set_labels(info.id, [label])
        back = href("/runs", info.id, "rows", index, fragment="labels")
        return RedirectResponse(str(back), status_code=303)
