//! A table's own incremental diff, replayed against this line's released reader on edited copies of C73
//! (`incremental-between=t1,t5`, two tags): the same table asked for the diff by snapshot ids
//! (`incremental-between-scan-mode=diff`), by commit times, with `incremental-between-tag-to-snapshot`, and
//! with the tags in the wrong order; and of C74 (`incremental-to-auto-tag=2026-12-03`): another end tag, a
//! tag that is not auto-created, and tag formats its names do not match. Every batch scan must be identical
//! or fail on both readers; the other modes fail validation on both.

use crate::common;
use crate::edited::{assert_replays, rewritten};

const C73: &str = "c73-incremental-between-tags";
const TAGS: &str = "\"incremental-between\" : \"t1,t5\"";

#[test]
fn an_incremental_diff_reads_as_the_released_reader_plans_and_merges_it() {
    let line = common::line_version();
    // `diff` is a scan mode from 1.1.1; 1.0.x fails on it, as the native reader does.
    let knows_diff = !line.starts_with("1.0.");
    let batch_if = |ok: bool| if ok { &["batch"][..] } else { &[][..] };
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    let cases = [
        // Snapshot ids 1 and 5 (the two tags' snapshots), diffed: what the tags plan.
        (
            rewritten(
                &at("ids"),
                C73,
                TAGS,
                "\"incremental-between\" : \"1,5\", \"incremental-between-scan-mode\" : \"diff\"",
            ),
            batch_if(knows_diff),
        ),
        // Commit times around every snapshot: the earliest (1) diffed with the latest (6).
        (
            rewritten(
                &at("times"),
                C73,
                TAGS,
                "\"incremental-between-timestamp\" : \"0,9999999999999\", \
                 \"incremental-between-scan-mode\" : \"diff\"",
            ),
            batch_if(knows_diff),
        ),
        // The tags as snapshot ids (1.4.2 on: the delta increment of snapshots 2 to 5; before, an unknown
        // option, and the tags' diff).
        (
            rewritten(
                &at("to-snapshot"),
                C73,
                TAGS,
                "\"incremental-between\" : \"t1,t5\", \"incremental-between-tag-to-snapshot\" : \"true\"",
            ),
            batch_if(true),
        ),
        // The same with `diff`: from 1.4.2 the increment knows no such mode (the release's error, on both
        // readers); before, the tags' diff.
        (
            rewritten(
                &at("to-snapshot-diff"),
                C73,
                TAGS,
                "\"incremental-between\" : \"t1,t5\", \"incremental-between-tag-to-snapshot\" : \"true\", \
                 \"incremental-between-scan-mode\" : \"diff\"",
            ),
            batch_if(knows_diff && !["1.4.2", "2.0.0"].contains(&line.as_str())),
        ),
        // The end tag before the start tag: the release's error, on both readers.
        (
            rewritten(
                &at("reversed"),
                C73,
                TAGS,
                "\"incremental-between\" : \"t5,t1\"",
            ),
            batch_if(false),
        ),
    ];
    assert_replays(&cases);
}

const C74: &str = "c74-incremental-to-auto-tag";
const AUTO_TAG: &str = "\"incremental-to-auto-tag\" : \"2026-12-03\"";

#[test]
fn an_incremental_diff_to_an_auto_created_tag_reads_as_the_released_reader_plans_it() {
    // 1.0.x knows no `incremental-to-auto-tag`: its load fails on the table's `scan.mode=incremental`.
    let line = common::line_version();
    let knows = !line.starts_with("1.0.");
    // 1.1.1 and 1.2.0 read tag names leniently (`2026-12-03` as `yyyyMMdd` gives them some time): the native
    // reader refuses a name it cannot read strictly there, so the other formats are replayed from 1.3.1.
    let strict = knows && !["1.1.1", "1.2.0"].contains(&line.as_str());
    let batch_if = |ok: bool| if ok { &["batch"][..] } else { &[][..] };
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    let end = |name: &str, tag: &str| {
        let to = format!("\"incremental-to-auto-tag\" : \"{tag}\"");
        rewritten(&at(name), C74, AUTO_TAG, &to)
    };
    let mut cases = vec![
        // The diff from the first auto-created tag to the second (snapshots 1 and 2).
        (end("second", "2026-12-02"), batch_if(knows)),
        // A tag whose name is no daily time: the release's error.
        (end("not-auto", "release-x"), batch_if(false)),
    ];
    // The table's tags read in other formats: `2026-12-03` is no auto-created tag there.
    let other_formats = [
        (
            rewritten(
                &at("without-dashes"),
                C74,
                AUTO_TAG,
                &format!("{AUTO_TAG}, \"tag.period-formatter\" : \"without_dashes\""),
            ),
            batch_if(false),
        ),
        (
            rewritten(
                &at("hourly"),
                C74,
                AUTO_TAG,
                &format!("{AUTO_TAG}, \"tag.creation-period\" : \"hourly\""),
            ),
            batch_if(false),
        ),
    ];
    if strict {
        cases.extend(other_formats);
    }
    assert_replays(&cases);
}
