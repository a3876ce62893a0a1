import Hummingbird
import Strata

/// The page: one HTML document, its style sheet and its script, all inside the binary; the
/// script loads everything it shows from the JSON API and renders every value as text
/// (`textContent`, never markup), so a record holding `<script>` shows those characters.
enum StudioPage {
    /// The HTML document: the frame the script fills. No inline script or style (the
    /// Content-Security-Policy forbids both).
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Strata Studio</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/studio.css">
<script src="/studio.js" defer></script>
</head>
<body>
<header>
  <h1>Strata Studio</h1>
  <span id="store-path"></span>
  <span id="mode"></span>
  <span id="live" title="live updates">&#9679; live</span>
</header>
<nav id="tabs">
  <button data-view="entities">Entities</button>
  <button data-view="records">Records</button>
  <button data-view="query">Query</button>
  <button data-view="relationships">Relationships</button>
  <button data-view="changes">Changes</button>
  <button data-view="migrations">Migrations</button>
  <button data-view="verify">Verify</button>
  <button data-view="stats">Stats</button>
</nav>
<main id="view"></main>
<div id="error" role="alert"></div>
</body>
</html>
"""#

    /// The style sheet.
    static let css = #"""
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
header { display: flex; gap: 1em; align-items: baseline; padding: .6em 1em; background: #1d2330; color: #fff; }
header h1 { font-size: 1.1em; margin: 0; }
#store-path { font-family: ui-monospace, monospace; opacity: .8; }
#mode { margin-left: auto; padding: 0 .5em; border-radius: 3px; background: #3b4a66; }
#live { color: #7c8799; } #live.on { color: #5fd38d; } #live.flash { color: #ffe066; }
nav { display: flex; gap: 2px; padding: .4em 1em 0; background: #dfe3ea; }
nav button { border: 0; padding: .45em .9em; background: transparent; cursor: pointer; border-radius: 4px 4px 0 0; }
nav button.active { background: #f6f7f9; font-weight: 600; }
main { padding: 1em; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #d5dae3; padding: .25em .5em; text-align: left; vertical-align: top; max-width: 28em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
th { background: #eef1f5; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.clickable { cursor: pointer; } tr.clickable:hover { background: #eef5ff; }
.toolbar { display: flex; flex-wrap: wrap; gap: .5em; align-items: center; margin-bottom: .6em; }
.columns label { margin-right: .6em; white-space: nowrap; }
pre, textarea, input.predicate { font-family: ui-monospace, monospace; font-size: 13px; }
pre { background: #fff; border: 1px solid #d5dae3; padding: .6em; white-space: pre-wrap; }
input.predicate { width: 40em; padding: .3em; }
#predicate-echo { font-family: ui-monospace, monospace; font-size: 13px; white-space: pre; }
#predicate-echo .at { text-decoration: underline wavy #d33; text-decoration-thickness: 2px; background: #ffe3e3; }
#error { position: fixed; bottom: 1em; right: 1em; max-width: 40em; background: #b3261e; color: #fff; padding: .6em .9em; border-radius: 4px; display: none; }
#error.shown { display: block; }
.error-text { color: #b3261e; }
.plan ul { list-style: none; padding-left: 1.4em; border-left: 1px dashed #aab3c2; margin: .2em 0; }
.plan li > div { display: inline-block; background: #fff; border: 1px solid #c5ccd8; border-radius: 4px; padding: .2em .5em; margin: .15em 0; }
.plan .figures { color: #4a5568; font-size: 12px; margin-left: .6em; }
.cards { display: flex; flex-wrap: wrap; gap: 1em; }
.card { background: #fff; border: 1px solid #d5dae3; border-radius: 6px; padding: .8em; min-width: 16em; }
.record-view { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
textarea { width: 100%; min-height: 16em; }
svg text { font: 12px system-ui, sans-serif; fill: #1d2330; }
.timeline li { margin: .2em 0; }
.badge { display: inline-block; padding: 0 .4em; border-radius: 3px; background: #dfe3ea; font-size: 12px; margin-right: .4em; }
.badge.insert { background: #d3f5df; } .badge.update { background: #fff2c6; } .badge.delete { background: #ffd9d6; }
"""#
}

extension Studio {
    func addPageRoutes(_ router: StudioRouter) {
        router.add(.get, "/") { _, _ in StudioResponse.text(StudioPage.html, type: "text/html; charset=utf-8") }
        router.add(.get, "/studio.css") { _, _ in StudioResponse.text(StudioPage.css, type: "text/css; charset=utf-8") }
        router.add(.get, "/studio.js") { _, _ in
            StudioResponse.text(StudioScript.core + StudioScript.views, type: "text/javascript; charset=utf-8")
        }
        router.add(.get, "/api/openapi.yaml") { _, _ in StudioResponse.text(StudioOpenAPI.document, type: "application/yaml; charset=utf-8") }
        router.add(.get, "/api/studio") { [self] _, _ in
            StudioResponse.json(.object([
                JSONMember(key: "writable", value: .bool(options.writable)),
                JSONMember(key: "path", value: .string(try store.statistics().path)),
            ]))
        }
    }
}
