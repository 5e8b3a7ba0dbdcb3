// tooleval viewer: the only script. Submits a filter form when one of its selects changes.
// Served from the package (CSP script-src 'self'); it reads no row data.
"use strict";
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
});
