//! The `--html` pages of `audit`, `inspect` and `replay`, rendered by a real headless browser (Debian's
//! `chromium`): what the rendered DOM shows, that the page loads nothing from the network, and that it
//! draws (a screenshot).
//!
//! Expected values come from the tables themselves, not from the page generator: the incomplete pair of
//! C00 (`corpora/c00-lookup-fault`) from `inspect --json -`, the planted difference of C01
//! (`corpora/c01-key-order`) from the example reader's `--fault change-value` (`tests/external_readers.rs`:
//! row 0, field amount, stock 5, example 6) and the replay's own `--json`.
//!
//! Without `chromium` on `PATH` the tests fail saying how to install it, unless `PAIMON_PARITY_NO_BROWSER=1`
//! is set: then the browser parts are skipped with a note (the checks on the HTML text still run).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long one browser run may take before it is stopped.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(60);

/// The pages under test, written once per test process by the binary.
struct Pages {
    dir: tempfile::TempDir,
    audit: PathBuf,
    inspect: PathBuf,
    replay: PathBuf,
    /// The report of the same run in `replay --json` (`runs[0].report`, harness/JSON-REPORT.md).
    replay_json: serde_json::Value,
    /// The timeline of C00 in `inspect --json -` (its `timeline`).
    timeline: serde_json::Value,
}

use common::paimon_parity;

fn c00() -> PathBuf {
    common::corpus("c00-lookup-fault").join("table")
}

fn pages() -> &'static Pages {
    static PAGES: OnceLock<Pages> = OnceLock::new();
    PAGES.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let audit = dir.path().join("audit <&> \"c00\".html");
        let inspect = dir.path().join("inspect.html");
        let replay = dir.path().join("replay.html");
        let json = dir.path().join("replay.json");
        let table = c00();
        let table = table.to_str().expect("a UTF-8 path");

        let (code, stdout, stderr) = paimon_parity(&["inspect", table, "--json", "-"]);
        assert_eq!(code, 0, "inspect --json -: {stderr}");
        let envelope: serde_json::Value =
            serde_json::from_str(&stdout).expect("inspect --json - prints JSON");
        let timeline = envelope["timeline"].clone();

        let (code, stdout, stderr) =
            paimon_parity(&["audit", table, "--html", audit.to_str().unwrap()]);
        assert_eq!(
            code, 1,
            "audit of C00 finds the lost changelog: {stdout}\n{stderr}"
        );
        let (code, _, stderr) =
            paimon_parity(&["inspect", table, "--html", inspect.to_str().unwrap()]);
        assert_eq!(code, 0, "inspect --html: {stderr}");

        let c01 = common::corpus("c01-key-order").join("table");
        let reader = format!(
            "example={} --fault change-value",
            env!("CARGO_BIN_EXE_paimon-parity-example-reader")
        );
        let (code, stdout, stderr) = paimon_parity(&[
            "replay",
            c01.to_str().unwrap(),
            "--reader",
            "example",
            "--reader-command",
            &reader,
            "--json",
            json.to_str().unwrap(),
            "--html",
            replay.to_str().unwrap(),
        ]);
        assert_eq!(
            code, 1,
            "the planted value change differs: {stdout}\n{stderr}"
        );
        let envelope: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&json).expect("the replay wrote its JSON"))
                .expect("the replay's JSON parses");
        let replay_json = envelope["runs"][0]["report"].clone();
        Pages {
            dir,
            audit,
            inspect,
            replay,
            replay_json,
            timeline,
        }
    })
}

/// `chromium` on `PATH`; `None` (after a note) when it is absent and `PAIMON_PARITY_NO_BROWSER=1`; else the
/// test fails saying how to install it.
fn browser() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join("chromium"))
            .find(|p| p.is_file())
    });
    if found.is_none() && std::env::var("PAIMON_PARITY_NO_BROWSER").as_deref() == Ok("1") {
        eprintln!(
            "note: chromium not found; PAIMON_PARITY_NO_BROWSER=1, so the browser checks are skipped"
        );
        return None;
    }
    Some(found.unwrap_or_else(|| {
        panic!(
            "these tests render the HTML reports in a headless browser, Debian's `chromium`, which is not on \
             PATH: install it (`apt-get install -y chromium`; CI's .ci/run does), or set \
             PAIMON_PARITY_NO_BROWSER=1 to skip the browser checks"
        )
    }))
}

/// What one browser run printed.
struct Run {
    stdout: String,
    stderr: String,
}

/// Runs headless `chromium` on `page` with `extra` arguments, in its own profile directory, stopping it after
/// [`BROWSER_TIMEOUT`].
fn chromium(browser: &Path, extra: &[&str], page: &Path) -> Run {
    let work = tempfile::tempdir().expect("a temporary directory");
    let stdout_path = work.path().join("stdout");
    let stderr_path = work.path().join("stderr");
    let url = format!(
        "file://{}",
        page.canonicalize()
            .expect("the page exists")
            .to_str()
            .expect("a UTF-8 path")
            .replace('%', "%25")
            .replace(' ', "%20")
            .replace('"', "%22")
            .replace('<', "%3C")
            .replace('>', "%3E")
            .replace('&', "%26")
    );
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-default-apps",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!(
            "--user-data-dir={}",
            work.path().join("profile").display()
        ))
        .args(extra)
        .arg(&url)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .expect("chromium starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for chromium") {
            break status;
        }
        if started.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish {url} within {} s; stderr: {}",
                BROWSER_TIMEOUT.as_secs(),
                std::fs::read_to_string(&stderr_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let run = Run {
        stdout: std::fs::read_to_string(&stdout_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&stderr_path).unwrap_or_default(),
    };
    assert!(
        status.success(),
        "chromium failed on {url}: {status}; stderr: {}",
        run.stderr
    );
    run
}

/// The DOM after rendering (`--dump-dom`).
fn rendered_dom(browser: &Path, page: &Path, extra: &[&str]) -> String {
    let mut args = vec!["--dump-dom"];
    args.extend_from_slice(extra);
    let dom = chromium(browser, &args, page).stdout;
    assert!(
        dom.contains("</html>"),
        "no DOM from {}: {dom}",
        page.display()
    );
    dom
}

/// The text of a DOM: `<style>` dropped, tags removed (a space for each but the inline `code`, `strong`,
/// `em` and `a`), entities decoded, white space collapsed.
fn text_of(dom: &str) -> String {
    let mut rest = dom;
    let mut out = String::new();
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let skip_to = if tail.starts_with("<style") {
            tail.find("</style>").map(|e| e + "</style>".len())
        } else {
            tail.find('>').map(|e| e + 1)
        };
        let Some(n) = skip_to else { break };
        let name: String = tail[1..]
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        if !matches!(name.as_str(), "code" | "strong" | "em" | "a") {
            out.push(' ');
        }
        rest = &tail[n..];
    }
    out.push_str(rest);
    let out = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The incomplete pairs of C00 by its own metadata (`inspect --json -`): (commit user, identifier).
fn incomplete_pairs(timeline: &serde_json::Value) -> Vec<(String, i64)> {
    timeline["commits"]
        .as_array()
        .expect("commits")
        .iter()
        .filter(|c| c["pair"]["status"] == "incomplete")
        .map(|c| {
            (
                c["commit_user"].as_str().expect("a user").to_owned(),
                c["commit_identifier"].as_i64().expect("an identifier"),
            )
        })
        .collect()
}

/// (a) The audit and inspect pages of C00, as the browser renders them, name its incomplete pair: the
/// commit user and identifier next to the word `incomplete`, in the timeline's words under the lanes and in
/// the page's tables.
#[test]
fn the_audit_and_inspect_pages_show_the_incomplete_pair_in_a_browser() {
    let pages = pages();
    let pairs = incomplete_pairs(&pages.timeline);
    assert!(
        !pairs.is_empty(),
        "C00 has an incomplete pair: {}",
        pages.timeline
    );
    let Some(browser) = browser() else { return };
    for (page, title) in [
        (&pages.audit, "paimon-parity audit: c00-lookup-fault"),
        (&pages.inspect, "paimon-parity inspect: c00-lookup-fault"),
    ] {
        let dom = rendered_dom(&browser, page, &[]);
        assert!(
            dom.contains(&format!("<title>{title}</title>")),
            "{}: {dom}",
            page.display()
        );
        let text = text_of(&dom);
        for (user, identifier) in &pairs {
            let said = format!("incomplete user {user}, identifier {identifier} (APPEND");
            assert!(
                text.contains(&said),
                "{} does not say `{said}`: {text}",
                page.display()
            );
        }
        // The lane of the pair's user, with its incomplete APPEND box labelled in text.
        assert!(
            dom.contains("class=\"snap k-append bad\""),
            "{}: no incomplete APPEND box",
            page.display()
        );
        assert!(
            text.contains("APPEND incomplete"),
            "{}: {text}",
            page.display()
        );
    }
    let audit = text_of(&rendered_dom(&browser, &pages.audit, &[]));
    assert!(audit.contains("CHANGELOG LOST"), "{audit}");
    // The missing key of C00: key 1, stream +I (1, 10), table (1, 20), written by the incomplete APPEND.
    let (user, identifier) = &pairs[0];
    assert!(
        audit.contains(&format!(
            "+I (1, 10) at snapshot 2 (1, 20) APPEND snapshot 3 (user {user}, identifier {identifier})"
        )),
        "{audit}"
    );
}

/// (b) The replay page of a planted value change (the example reader's `--fault change-value` on C01) shows,
/// once rendered, both values of the first difference (stock 5, example 6) and one grid cell per split of
/// the replay's JSON, coloured by verdict.
#[test]
fn the_replay_page_shows_both_values_of_the_first_difference_and_a_cell_per_split() {
    let pages = pages();
    let splits = pages.replay_json["splits"].as_array().expect("splits");
    assert_eq!(splits.len(), 2, "{}", pages.replay_json);
    let m = &splits[0]["first_mismatch"];
    assert_eq!(
        (&m["row"], &m["field"], &m["stock"], &m["native"]),
        (
            &serde_json::json!(0),
            &serde_json::json!("amount"),
            &serde_json::json!("5"),
            &serde_json::json!("6")
        )
    );
    let Some(browser) = browser() else { return };
    let dom = rendered_dom(&browser, &pages.replay, &[]);
    assert!(
        dom.contains("<title>paimon-parity replay: c01-key-order</title>"),
        "{dom}"
    );
    let text = text_of(&dom);
    assert!(
        text.contains("row 0, field amount: stock 5 vs example 6"),
        "the first difference in words: {text}"
    );
    assert!(
        dom.contains("<td class=\"mono stock\">5</td><td class=\"mono other\">6</td>"),
        "both values side by side: {dom}"
    );
    assert!(
        text.contains("stock value example value"),
        "the columns name both readers: {text}"
    );
    // The grid: one cell per split, in plan order, with the verdict as class and in text.
    let grid_start = dom.find("split-grid").expect("a split grid");
    let grid = &dom[grid_start..grid_start + dom[grid_start..].find("</ul>").unwrap()];
    let cells: Vec<&str> = grid.split("<li class=\"cell s-").skip(1).collect();
    assert_eq!(cells.len(), splits.len(), "{grid}");
    for (cell, split) in cells.iter().zip(splits) {
        // The JSON's verdict (`differs-decoding`) is the cell's class (`s-differs-decoding`).
        let verdict = split["verdict"].as_str().unwrap();
        assert!(cell.starts_with(verdict), "{cell} for {split}");
        let key = format!(
            "snapshot {}, partition [], bucket {}",
            split["key"]["snapshot_id"], split["key"]["bucket"]
        );
        assert!(cell.contains(&key), "{cell} names {key}");
    }
    assert!(
        text.contains("differs (decoding) (1)"),
        "the legend counts: {text}"
    );
}

/// Browser flags of an offline render: every host name unresolvable, and each URL request logged
/// (`NetworkDelegate::NotifyBeforeURLRequest: <url>` at `--v=1`).
const OFFLINE: [&str; 3] = [
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--enable-logging=stderr",
    "--v=1",
];

/// The URLs a render asked for, from its `--v=1` log, except the page's own `file:` URL and Chromium's own
/// housekeeping (its time, update and account services on Google hosts, asked for whatever the page is).
fn page_requests(stderr: &str) -> Vec<String> {
    const MARK: &str = "NotifyBeforeURLRequest: ";
    stderr
        .lines()
        .filter_map(|l| l.find(MARK).map(|i| l[i + MARK.len()..].trim().to_owned()))
        .filter(|url| {
            let Some((scheme, rest)) = url.split_once("://") else {
                return true;
            };
            if matches!(scheme, "file" | "chrome" | "about" | "data") {
                return false;
            }
            let host = rest.split(['/', '?', ':']).next().unwrap_or_default();
            ![
                ".google.com",
                ".googleapis.com",
                ".gstatic.com",
                ".gvt1.com",
            ]
            .iter()
            .any(|h| host.ends_with(h) || host == &h[1..])
        })
        .collect()
}

/// (c) The pages need nothing from the network: no external URL in any `src` or `href`, no style sheet,
/// script, font or image to fetch; the browser renders them with every host name unresolvable and its log
/// shows no request but for the page itself (a control page with an external image shows that the log
/// would catch one); a screenshot of each is a real picture (> 10 KB PNG).
#[test]
fn the_pages_need_no_network_and_render_to_a_screenshot() {
    let pages = pages();
    let sizes: Vec<(String, u64)> = [&pages.audit, &pages.inspect, &pages.replay]
        .iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::metadata(p).unwrap().len(),
            )
        })
        .collect();
    eprintln!("page sizes: {sizes:?}");
    for page in [&pages.audit, &pages.inspect, &pages.replay] {
        let html = std::fs::read_to_string(page).expect("the page is UTF-8");
        let lower = html.to_lowercase();
        for banned in [
            "<link",
            "<script",
            "<img",
            "<iframe",
            "<object",
            "<embed",
            "@import",
            "url(",
            "@font-face",
        ] {
            assert!(
                !lower.contains(banned),
                "{} contains {banned}",
                page.display()
            );
        }
        for attr in ["src=", "href=", "srcset=", "action=", "poster="] {
            for (i, _) in lower.match_indices(attr) {
                let value = lower[i + attr.len()..].trim_start_matches(['"', '\'']);
                assert!(
                    !(value.starts_with("http:")
                        || value.starts_with("https:")
                        || value.starts_with("//")
                        || value.starts_with("file:")
                        || value.starts_with("ftp:")),
                    "{}: external URL in {attr}{}",
                    page.display(),
                    &value[..value.len().min(80)]
                );
                assert!(
                    attr == "href=" && value.starts_with('#'),
                    "{}: only in-page links: {attr}{}",
                    page.display(),
                    &value[..value.len().min(80)]
                );
            }
        }
        assert!(
            !lower.contains("http://") && !lower.contains("https://"),
            "{}: a URL in the page",
            page.display()
        );
        assert!(html.len() < 2 << 20, "{} is bounded", page.display());
    }
    let Some(browser) = browser() else { return };
    let offline = OFFLINE;
    let control = pages.dir.path().join("control.html");
    std::fs::write(
        &control,
        "<!DOCTYPE html><html><body><img src=\"http://paimon-parity.invalid/x.png\"></body></html>",
    )
    .unwrap();
    let mut args = vec!["--dump-dom"];
    args.extend_from_slice(&offline);
    let asked = page_requests(&chromium(&browser, &args, &control).stderr);
    assert!(
        asked.iter().any(|u| u.contains("paimon-parity.invalid")),
        "the browser log shows a page's requests: {asked:?}"
    );
    for page in [&pages.audit, &pages.inspect, &pages.replay] {
        let mut args = vec!["--dump-dom"];
        args.extend_from_slice(&offline);
        let run = chromium(&browser, &args, page);
        assert!(
            run.stdout.contains("</footer>"),
            "{} renders offline: {}",
            page.display(),
            run.stderr
        );
        let asked = page_requests(&run.stderr);
        assert!(
            asked.is_empty(),
            "{} asked the network for {asked:?}",
            page.display()
        );
        let png = pages.dir.path().join(format!(
            "{}.png",
            page.file_stem().unwrap().to_string_lossy()
        ));
        let shot = format!("--screenshot={}", png.display());
        let mut args = vec![shot.as_str(), "--window-size=1400,1000"];
        args.extend_from_slice(&offline);
        chromium(&browser, &args, page);
        let bytes = std::fs::read(&png).expect("chromium wrote the screenshot");
        assert!(
            bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
            "{} is a PNG",
            png.display()
        );
        assert!(
            bytes.len() > 10 * 1024,
            "{}: a screenshot of {} bytes is blank",
            png.display(),
            bytes.len()
        );
    }
}

/// An unwritable `--html` path fails before any work, naming the path (exit 2), as `--json` does.
#[test]
fn an_unwritable_html_path_fails_before_any_work() {
    let table = c00();
    let missing = Path::new("/nonexistent-dir-for-paimon-parity/report.html");
    for command in ["audit", "inspect"] {
        let (code, stdout, stderr) = paimon_parity(&[
            command,
            table.to_str().unwrap(),
            "--html",
            missing.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{command}: {stdout}\n{stderr}");
        assert!(
            stderr.contains("/nonexistent-dir-for-paimon-parity/report.html"),
            "{command}: {stderr}"
        );
        assert!(stdout.is_empty(), "{command} did no work: {stdout}");
    }
}
