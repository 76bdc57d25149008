// The boards answer at once: pbem's only script, an enhancement of pages that work without it.
//
// On a page with a board, a link of the board, of a step bar (<nav>) or of a move list, and a GET
// form, fetch their page and put its <main> in place of this one (the address follows, and the
// browser's Back and Forward restore it), so the board changes without loading the whole page.
// POST forms (a move confirmed, a message sent) are never touched. The Left and Right arrow keys
// follow the page's rel="prev" and rel="next" links. A "Flip the board" button (its label comes
// translated from the script tag) turns the board round; without this script it is not there.
(function () {
  "use strict";

  var script = document.currentScript;
  var flipLabel = (script && script.getAttribute("data-flip")) || "Flip the board";
  var flipped = false;
  var loading = null;

  function main() {
    return document.querySelector("main");
  }

  function hasBoard() {
    var here = main();
    return !!(here && here.querySelector(".board"));
  }

  function sameOrigin(url) {
    return url.origin === window.location.origin;
  }

  // Where focus goes in the new page: the same cell, the same step link, or the page itself.
  function focusKey(element) {
    if (!element || !element.getAttribute) {
      return null;
    }
    var cell = element.getAttribute("data-cell");
    if (cell) {
      return '.board a[data-cell="' + cell.replace(/["\\]/g, "\\$&") + '"]';
    }
    var rel = element.getAttribute("rel");
    if (rel === "prev" || rel === "next") {
      return 'a[rel="' + rel + '"]';
    }
    return null;
  }

  function swapIn(text, focusSelector) {
    var page = new DOMParser().parseFromString(text, "text/html");
    var fresh = page.querySelector("main");
    var old = main();
    if (!fresh || !old) {
      return false;
    }
    document.title = page.title;
    // The language links carry the page's address: keep them pointing here.
    var selector = "nav.languages, header.languages";
    var oldLanguages = document.querySelector(selector);
    var newLanguages = page.querySelector(selector);
    if (oldLanguages && newLanguages) {
      oldLanguages.replaceWith(document.adoptNode(newLanguages));
    }
    old.replaceWith(document.adoptNode(fresh));
    enhance();
    var target = focusSelector && fresh.querySelector(focusSelector);
    if (target) {
      target.focus({ preventScroll: true });
    } else {
      fresh.setAttribute("tabindex", "-1");
      fresh.focus({ preventScroll: true });
    }
    return true;
  }

  function go(url, focusSelector, push) {
    if (loading) {
      loading.abort();
    }
    var controller = new AbortController();
    loading = controller;
    fetch(url.href, { credentials: "same-origin", signal: controller.signal,
                      headers: { Accept: "text/html" } })
      .then(function (response) {
        var type = response.headers.get("Content-Type") || "";
        var landed = new URL(response.url || url.href);
        landed.hash = url.hash;  // a cell link's #cell-…: the address a full load would show
        if (!sameOrigin(landed) || type.indexOf("text/html") !== 0) {
          throw new Error("not a page of this site");
        }
        return response.text().then(function (text) {
          if (loading !== controller) {
            return;
          }
          loading = null;
          if (push) {
            window.history.pushState({ pbem: true }, "", landed.href);
          }
          if (!swapIn(text, focusSelector)) {
            window.location.assign(landed.href);
          }
        });
      })
      .catch(function (error) {
        if (error && error.name === "AbortError") {
          return;
        }
        loading = null;
        window.location.assign(url.href);  // the ordinary way: the page as without script
      });
  }

  function inPlaceLink(link) {
    var here = main();
    if (!here || !here.contains(link) || !hasBoard()) {
      return false;
    }
    if (link.hasAttribute("download") || link.getAttribute("target")) {
      return false;
    }
    var rel = link.getAttribute("rel") || "";
    return !!(link.closest(".board") || link.closest("nav") || link.closest("ol.moves") ||
              /\b(prev|next)\b/.test(rel));
  }

  function hrefOf(link) {
    var href = link.getAttribute("href") || link.getAttribute("xlink:href");
    if (!href || href.charAt(0) === "#") {
      return null;
    }
    var url = new URL(href, window.location.href);
    return sameOrigin(url) ? url : null;
  }

  document.addEventListener("click", function (event) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey ||
        event.shiftKey || event.altKey) {
      return;
    }
    var link = event.target.closest && event.target.closest("a");
    if (!link || !inPlaceLink(link)) {
      return;
    }
    var url = hrefOf(link);
    if (!url) {
      return;
    }
    event.preventDefault();
    go(url, focusKey(link), true);
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var here = main();
    if (event.defaultPrevented || !here || !here.contains(form) || !hasBoard() ||
        (form.getAttribute("method") || "get").toLowerCase() !== "get" ||
        form.getAttribute("target")) {
      return;  // a POST form stays an ordinary, explicit submission
    }
    var url = new URL(form.getAttribute("action") || window.location.href, window.location.href);
    if (!sameOrigin(url)) {
      return;
    }
    var data = new FormData(form);
    var submitter = event.submitter;
    if (submitter && submitter.name) {
      data.append(submitter.name, submitter.value);
    }
    url.search = new URLSearchParams(data).toString();
    event.preventDefault();
    go(url, null, true);
  });

  document.addEventListener("keydown", function (event) {
    if ((event.key !== "ArrowLeft" && event.key !== "ArrowRight") || event.defaultPrevented ||
        event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
      return;
    }
    var active = document.activeElement;
    if (active && (active.isContentEditable ||
                   /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName))) {
      return;  // the arrows move the caret there
    }
    if (active && active.closest && active.closest(".board.zoomed")) {
      return;  // the arrows pan a zoomed board's box
    }
    var here = main();
    var rel = event.key === "ArrowLeft" ? "prev" : "next";
    var link = here && here.querySelector('a[rel~="' + rel + '"]');
    var url = link && hrefOf(link);
    if (!url || !hasBoard()) {
      return;
    }
    event.preventDefault();
    go(url, 'a[rel="' + rel + '"]', true);
  });

  window.addEventListener("popstate", function (event) {
    if (!event.state || !event.state.pbem) {
      return;  // an entry of the page itself (the skip link's #after-board)
    }
    if (hasBoard()) {
      go(new URL(window.location.href), null, false);
    } else {
      window.location.reload();
    }
  });

  function setFlipped(board, button) {
    board.classList.toggle("flipped", flipped);
    button.setAttribute("aria-pressed", flipped ? "true" : "false");
  }

  function enhance() {
    var here = main();
    var board = here && here.querySelector(".board");
    if (!board || board.getAttribute("data-enhanced")) {
      return;
    }
    board.setAttribute("data-enhanced", "1");
    var button = document.createElement("button");
    button.type = "button";
    button.className = "secondary flip";
    button.textContent = flipLabel;
    button.addEventListener("click", function () {
      flipped = !flipped;
      setFlipped(board, button);
    });
    var bar = document.createElement("p");
    bar.appendChild(button);
    board.parentNode.insertBefore(bar, board);
    setFlipped(board, button);
  }

  if (hasBoard()) {
    // The first entry gets a state too, so that coming back to it restores it in place.
    window.history.replaceState({ pbem: true }, "", window.location.href);
  }
  enhance();
})();
