// tooleval viewer: the only script. Served from the package (CSP script-src 'self'); it reads
// no row data. It does four things:
//  - a filter select submits its form when changed (the form's action ends in #rows, so the
//    page opens at the rows, not at the top);
//  - keys on a run page: j / k move through the rows, Enter (or o) opens the current one,
//    / goes to the search field, Esc leaves a field or clears the current row;
//  - keys on a row page: j / k next / previous row of the same view, u back to the rows,
//    p / f label the row pass / fail (only when the viewer allows labels: the form is there);
//  - "compare selected" with fewer than two runs ticked says so instead of asking the server.
"use strict";
(function () {
  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || (target && target.isContentEditable);
  }

  function go(id) {
    var link = document.getElementById(id);
    if (link && link.getAttribute("href")) { window.location.assign(link.getAttribute("href")); }
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("select.autosubmit").forEach(function (select) {
      select.addEventListener("change", function () {
        if (select.form && select.name !== "a" && select.name !== "b") {
          var page = select.form.querySelector("input[name=page]");
          if (page) { page.remove(); }
          select.form.submit();
        }
      });
    });

    // "compare selected" with fewer than two runs ticked: a hint beside the button, no request.
    var pick = document.getElementById("pick");
    if (pick) {
      pick.addEventListener("submit", function (event) {
        var ticked = document.querySelectorAll("input[type=checkbox][form=pick]:checked").length;
        if (ticked >= 2) { return; }
        event.preventDefault();
        var hint = document.getElementById("pick-hint");
        if (!hint) {
          hint = document.createElement("p");
          hint.id = "pick-hint";
          hint.className = "pick-hint";
          hint.setAttribute("role", "status");
          pick.appendChild(hint);
        }
        hint.textContent = ticked === 1
          ? "One run is ticked: tick a second run (or more) to compare."
          : "No run is ticked: tick two runs or more to compare.";
      });
    }

    var rows = Array.prototype.slice.call(document.querySelectorAll("table.rows tbody tr"));
    var current = -1;
    var hash = window.location.hash.slice(1);
    if (hash.indexOf("row-") === 0) {
      rows.forEach(function (tr, i) { if (tr.id === hash) { current = i; } });
      if (current >= 0) { rows[current].classList.add("current"); }
    }

    function select(index) {
      if (!rows.length) { return; }
      if (current >= 0) { rows[current].classList.remove("current"); }
      current = Math.max(0, Math.min(rows.length - 1, index));
      var tr = rows[current];
      tr.classList.add("current");
      tr.scrollIntoView({ block: "nearest" });
      var link = tr.querySelector("a");
      if (link) { link.focus({ preventScroll: true }); }
    }

    document.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) { return; }
      if (typing(event.target)) {
        if (event.key === "Escape") { event.target.blur(); event.preventDefault(); }
        return;
      }
      var onRow = document.getElementById("row-up") !== null;
      if (event.key === "/") {
        var search = document.getElementById("search");
        if (search) { event.preventDefault(); search.focus(); search.select(); }
      } else if (event.key === "j") {
        if (onRow) { go("row-next"); } else { select(current + 1); }
      } else if (event.key === "k") {
        if (onRow) { go("row-prev"); } else { select(current - 1); }
      } else if ((event.key === "Enter" || event.key === "o") && !onRow && current >= 0) {
        var link = rows[current].querySelector("a");
        if (link && event.key === "o") { link.click(); }
      } else if (event.key === "u" && onRow) {
        go("row-up");
      } else if ((event.key === "p" || event.key === "f") && onRow) {
        var button = document.getElementById(event.key === "p" ? "label-pass" : "label-fail");
        if (button) { event.preventDefault(); button.click(); }
      } else if (event.key === "Escape" && current >= 0) {
        rows[current].classList.remove("current");
        current = -1;
        if (document.activeElement) { document.activeElement.blur(); }
      }
    });
  });
})();
