
// ---- a link to `page.html#x` lands at x, below the sticky header (tools/docs.py appends this to smalldocs.js).
// The browser scrolls to x as soon as it can; the maths typeset and the figures decoded after that move x further
// down, so once the page has loaded, x is scrolled to again, unless the reader has scrolled meanwhile.
(() => {
  if (!location.hash) return;
  let moved = false;
  for (const e of ["wheel", "touchstart", "keydown", "mousedown"]) addEventListener(e, () => { moved = true; }, { once: true, passive: true });
  const land = () => {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && !moved) target.scrollIntoView({ behavior: "instant" });
  };
  addEventListener("load", () => { land(); requestAnimationFrame(land); setTimeout(land, 250); });
})();
