// The docs site's search ranking (tools/docs.py appends this file to smalldocs.js, whose search box calls it).
// Results: the page whose title holds the query first (the page about it), then entries holding every word of the
// query as a whole word, then as part of a word, then Fuse's fuzzy
// matches; a word in a section's heading counts more than in the page's title, and that more than in the text; among
// equals, the section that uses the word more often, and in the query's own case ("YaRN", not "yarn"), comes first.
// Words in scripts without spaces (Chinese) match anywhere. All results are returned; the list scrolls.
window.rankSearch = (index, query, fuse) => {
  const words = query.toLowerCase().split(/\s+/).filter((w) => w.length);
  const escape = (w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const whole = words.map((w) => (/^[\w.-]+$/.test(w) ? new RegExp("(^|[^\\w])" + escape(w) + "($|[^\\w])") : null));
  const asTyped = query.split(/\s+/).filter((w) => w.length);
  const fields = [["section", 4], ["title", 2], ["text", 1]];
  const score = (e) => {
    let total = 0;
    for (let i = 0; i < words.length; i++) {
      let best = 0;
      for (const [key, weight] of fields) {
        const text = (e[key] || "").toLowerCase();
        if (!text.includes(words[i])) continue;
        best = Math.max(best, weight * (!whole[i] || whole[i].test(text) ? 10 : 1));
      }
      if (!best) return 0;  // every word must occur
      const text = e.text || "";
      total += best + Math.min(5, text.toLowerCase().split(words[i]).length - 1) + (text.includes(asTyped[i]) ? 2 : 0);
    }
    return total;
  };
  // A page whose title holds every word of the query is the page about it: its first entry leads the results, the
  // title with the fewest other words first ("Unigram" finds the Unigram page before the sections that mention it).
  const firsts = new Set();
  const pages = new Set();
  for (const e of index) {
    const page = (e.href || "").split("#")[0];
    if (!pages.has(page)) { pages.add(page); firsts.add(e); }
  }
  const titleWords = (t) => t.toLowerCase().split(/[^\w.-]+/).filter((w) => w.length);
  const about = (e) => {
    if (!firsts.has(e)) return 0;
    const title = (e.title || "").toLowerCase();
    if (!words.every((w, i) => (whole[i] ? whole[i].test(title) : title.includes(w)))) return 0;
    return 1000 - titleWords(title).length;
  };
  const ranked = index.map((e, i) => { const s = score(e); return [s && s + about(e), i, e]; }).filter((s) => s[0] > 0)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1]).map((s) => s[2]);
  const seen = new Set(ranked);
  const fuzzy = fuse ? fuse.search(query, { limit: 50 }).map((h) => h.item).filter((e) => !seen.has(e)) : [];
  return ranked.concat(fuzzy);
};
