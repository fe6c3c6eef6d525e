//! The snapshot timeline of a table (per commit user, the APPEND and COMPACT halves of one commit on one
//! band, incomplete pairs marked) and its snapshot table, from the table's own metadata.

use super::*;

pub(super) fn kind_word(k: CommitKind) -> &'static str {
    match k {
        CommitKind::Append => "APPEND",
        CommitKind::Compact => "COMPACT",
        CommitKind::Overwrite => "OVERWRITE",
        CommitKind::Analyze => "ANALYZE",
    }
}

pub(super) fn kind_class(k: CommitKind) -> &'static str {
    match k {
        CommitKind::Append => "k-append",
        CommitKind::Compact => "k-compact",
        CommitKind::Overwrite => "k-overwrite",
        CommitKind::Analyze => "k-analyze",
    }
}

pub(super) fn status_word(s: PairStatus) -> &'static str {
    s.words()
}

pub(super) fn status_badge(s: PairStatus) -> String {
    let class = match s {
        PairStatus::Complete => "b-ok",
        PairStatus::CompactedLater | PairStatus::NoCompactionDue => "b-info",
        PairStatus::LostHealedLater => "b-bad",
        PairStatus::NotApplicable => "b-none",
        PairStatus::Incomplete => "b-bad",
        PairStatus::Deferred => "b-info",
        PairStatus::DeferredToLost => "b-bad",
    };
    format!("<span class=\"badge {class}\">{}</span>", status_word(s))
}

/// The pairing verdict of every (commit user, identifier) of `t`: the one `inspect` recorded from the whole
/// timeline when there is one (a filtered timeline keeps it), else part 1 of the audit on `t`.
pub(super) fn pair_statuses(t: &Timeline) -> HashMap<(String, i64), (PairStatus, String)> {
    let mut out: HashMap<(String, i64), (PairStatus, String)> = crate::inspect::commit_pairs(t)
        .into_iter()
        .map(|p: CommitPair| ((p.commit_user, p.commit_identifier), (p.status, p.detail)))
        .collect();
    for c in &t.commits {
        if let Some(p) = &c.pair {
            out.insert(
                (c.commit_user.clone(), c.commit_identifier),
                (p.status, p.detail.clone()),
            );
        }
    }
    out
}

/// The timeline: a lane per commit user (in order of first snapshot), snapshots as boxes in id order (one
/// column per snapshot, so that lanes line up in time), the halves of one (user, identifier) on a shared
/// band, incomplete pairs dashed red with an `incomplete` label and their detail as tooltip; then a legend
/// and the incomplete pairs in words. At most [`MAX_TIMELINE_SNAPSHOTS`] snapshots are drawn.
pub(super) fn timeline_view(out: &mut String, t: &Timeline) {
    let all = t.snapshots();
    if all.is_empty() {
        out.push_str("<p>No snapshot.</p>");
        return;
    }
    let shown = &all[..all.len().min(MAX_TIMELINE_SNAPSHOTS)];
    // Position in id order of every drawn snapshot: chunk `i / TIMELINE_COLUMNS`, column within it.
    let index: HashMap<i64, usize> = shown.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
    let mut users: Vec<&str> = Vec::new();
    for s in shown {
        if !users.contains(&s.commit_user.as_str()) {
            users.push(&s.commit_user);
        }
    }
    let lane = |user: &str| users.iter().position(|u| *u == user).unwrap_or(0) + 1;
    let statuses = pair_statuses(t);
    let status_of = |user: &str, id: i64| statuses.get(&(user.to_owned(), id));

    out.push_str(
        "<div class=\"timeline\" role=\"group\" aria-label=\"snapshot timeline, a lane per commit user\">",
    );
    for (chunk, part) in shown.chunks(TIMELINE_COLUMNS).enumerate() {
        let lo = chunk * TIMELINE_COLUMNS;
        let hi = lo + part.len() - 1;
        let col = |i: usize| i - lo + 2;
        put!(
            out,
            "<div class=\"tl-chunk\"><p class=\"tl-range\">snapshots {}–{}</p><div class=\"tl\" \
             style=\"grid-template-columns:var(--lane) repeat({}, var(--col))\">",
            part[0].id,
            part[part.len() - 1].id,
            part.len()
        );
        for (i, user) in users.iter().enumerate() {
            let n = shown.iter().filter(|s| s.commit_user == *user).count();
            put!(
                out,
                "<div class=\"lane\" style=\"grid-row:{r}\" title=\"{u}\"><span class=\"who mono\">{u}</span>\
                 <span class=\"n\">{n} snapshot{}</span></div><div class=\"lanebg\" style=\"grid-row:{r}\"></div>",
                plural(n),
                r = i + 1,
                u = esc(user)
            );
        }
        // Bands joining the halves of one commit (the part of each that falls in this chunk).
        for c in &t.commits {
            let at: Vec<usize> = c
                .snapshots
                .iter()
                .filter_map(|s| index.get(&s.id).copied())
                .collect();
            let (Some(&first), Some(&last)) = (at.iter().min(), at.iter().max()) else {
                continue;
            };
            if last < lo || first > hi {
                continue;
            }
            let status = status_of(&c.commit_user, c.commit_identifier);
            let incomplete = status.is_some_and(|(s, _)| s.lost_changelog());
            if at.len() < 2 && !incomplete {
                continue;
            }
            let mut class = match status.map(|(s, _)| *s) {
                Some(PairStatus::Incomplete | PairStatus::LostHealedLater) => {
                    "pair incomplete".to_owned()
                }
                Some(PairStatus::CompactedLater) => "pair later".to_owned(),
                _ => "pair".to_owned(),
            };
            if first < lo {
                class.push_str(" cont-left");
            }
            if last > hi {
                class.push_str(" cont-right");
            }
            let halves: Vec<String> = c
                .snapshots
                .iter()
                .map(|s| format!("{} {}", kind_word(s.commit_kind), s.id))
                .collect();
            let tip = format!(
                "user {}, identifier {}: {}{}",
                c.commit_user,
                identifier(c.commit_identifier),
                halves.join(" + "),
                status
                    .map(|(s, d)| format!(" - {}: {}", status_word(*s), shorten(d, MAX_TEXT)))
                    .unwrap_or_default()
            );
            put!(
                out,
                "<div class=\"{class}\" style=\"grid-row:{};grid-column:{}/{}\" title=\"{}\"></div>",
                lane(&c.commit_user),
                col(first.max(lo)),
                col(last.min(hi)) + 1,
                esc(&tip)
            );
        }
        for (i, s) in part.iter().enumerate() {
            let status = status_of(&s.commit_user, s.commit_identifier);
            let incomplete = status.is_some_and(|(st, _)| *st == PairStatus::Incomplete);
            let mut tip = format!(
                "snapshot {} {}\nuser {}, identifier {}\n{}\nrecords total {}, delta {}; changelog {} file{} {} rows\n\
                 files added {}, deleted {}",
                s.id,
                kind_word(s.commit_kind),
                s.commit_user,
                identifier(s.commit_identifier),
                s.time,
                opt(s.total_record_count),
                opt(s.delta_record_count),
                s.changelog_files(),
                plural(s.changelog_files()),
                s.changelog_rows(),
                files(&s.added),
                files(&s.deleted)
            );
            if let Some((st, d)) = status {
                put!(tip, "\npair {}: {}", status_word(*st), shorten(d, MAX_TEXT));
            }
            put!(
                out,
                "<div class=\"snap {}{}\" style=\"grid-row:{};grid-column:{}\" title=\"{}\"><span class=\"id\">{}\
                 </span><span class=\"kind\">{}</span>{}</div>",
                kind_class(s.commit_kind),
                if incomplete { " bad" } else { "" },
                lane(&s.commit_user),
                col(lo + i),
                esc(&tip),
                s.id,
                kind_word(s.commit_kind),
                if incomplete {
                    "<span class=\"flag\">incomplete</span>"
                } else {
                    ""
                }
            );
        }
        out.push_str("</div></div>");
    }
    out.push_str("</div>");
    if shown.len() < all.len() {
        put!(
            out,
            "<p class=\"note\">{} later snapshots not drawn (at most {MAX_TIMELINE_SNAPSHOTS}); snapshots {}..{} \
             are.</p>",
            all.len() - shown.len(),
            shown[0].id,
            shown[shown.len() - 1].id
        );
    }
    out.push_str(
        "<ul class=\"legend\" aria-label=\"timeline legend\">\
         <li><span class=\"sw k-append\"></span>APPEND snapshot</li>\
         <li><span class=\"sw k-compact\"></span>COMPACT snapshot</li>\
         <li><span class=\"sw\" style=\"border:2px solid #8c959f;background:#e6eaef\"></span>halves of one \
         commit (user, identifier)</li>\
         <li><span class=\"sw\" style=\"border:2px dotted #8c959f;background:#e6eaef\"></span>compacted later</li>\
         <li><span class=\"sw\" style=\"border:2px dashed #b91c1c;background:#fde8e8\"></span>\
         <span class=\"flag\">incomplete</span> APPEND whose changelog never came</li></ul>",
    );
    let incomplete: Vec<_> = t
        .commits
        .iter()
        .filter_map(|c| {
            status_of(&c.commit_user, c.commit_identifier)
                .filter(|(s, _)| *s == PairStatus::Incomplete)
                .map(|(_, d)| (c, d))
        })
        .collect();
    if !incomplete.is_empty() {
        out.push_str("<ul class=\"incomplete-list\">");
        for (c, d) in incomplete.iter().take(MAX_TABLE_ROWS) {
            let snaps: Vec<String> = c
                .snapshots
                .iter()
                .map(|s| format!("{} {}", kind_word(s.commit_kind), s.id))
                .collect();
            put!(
                out,
                "<li class=\"incomplete-pair\"><span class=\"flag\">incomplete</span> user <code>{}</code>, \
                 identifier <code>{}</code> ({}): {}</li>",
                esc(&c.commit_user),
                esc(&identifier(c.commit_identifier)),
                esc(&snaps.join(" + ")),
                esc(&shorten(d, MAX_TEXT))
            );
        }
        out.push_str("</ul>");
        more_rows(out, incomplete.len(), "incomplete pairs");
    }
}

/// The snapshot table of `inspect`: one row per snapshot in id order, at most [`MAX_TABLE_ROWS`].
pub(super) fn snapshot_table(out: &mut String, t: &Timeline) {
    let all = t.snapshots();
    if all.is_empty() {
        out.push_str("<p>No snapshot.</p>");
        return;
    }
    let statuses = pair_statuses(t);
    out.push_str(
        "<table class=\"snapshots\"><thead><tr><th>snapshot</th><th>kind</th><th>commit user</th>\
         <th>identifier</th><th>pair</th><th>time (UTC)</th><th>schema</th><th>records total</th>\
         <th>delta</th><th>changelog</th><th>files added</th><th>files deleted</th></tr></thead><tbody>",
    );
    for s in all.iter().take(MAX_TABLE_ROWS) {
        let status = statuses.get(&(s.commit_user.clone(), s.commit_identifier));
        let incomplete = status.is_some_and(|(st, _)| *st == PairStatus::Incomplete);
        let pair = status
            .map(|(st, d)| {
                format!(
                    "<span title=\"{}\">{}</span>",
                    esc(&shorten(d, MAX_TEXT)),
                    status_badge(*st)
                )
            })
            .unwrap_or_default();
        put!(
            out,
            "<tr{}><td class=\"num\">{}</td><td>{}</td><td class=\"mono\">{}</td><td class=\"num\">{}</td>\
             <td>{pair}</td><td class=\"mono\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td>{}{}</tr>",
            if incomplete {
                " class=\"row-incomplete\""
            } else {
                ""
            },
            s.id,
            kind_word(s.commit_kind),
            esc(&s.commit_user),
            esc(&identifier(s.commit_identifier)),
            esc(&s.time),
            s.schema_id,
            opt(s.total_record_count),
            opt(s.delta_record_count),
            if s.changelog.is_empty() {
                "-".to_owned()
            } else {
                format!(
                    "{} file{}, {} rows",
                    s.changelog_files(),
                    plural(s.changelog_files()),
                    s.changelog_rows()
                )
            },
            file_cell(&s.added),
            file_cell(&s.deleted)
        );
    }
    out.push_str("</tbody></table>");
    more_rows(out, all.len(), "snapshots");
}

/// `3 files, 20 rows` (with the levels, and every group as tooltip), or `-`.
pub(super) fn file_cell(groups: &[FileGroup]) -> String {
    if groups.is_empty() {
        return "<td class=\"num\">-</td>".to_owned();
    }
    let mut levels: Vec<i32> = groups.iter().map(|g| g.level).collect();
    levels.sort_unstable();
    levels.dedup();
    let levels: Vec<String> = levels.iter().map(|l| format!("L{l}")).collect();
    let tip: Vec<String> = groups
        .iter()
        .take(200)
        .map(|g| {
            format!(
                "{}bucket {} level {}: {} file{} {} rows",
                if g.partition.is_empty() {
                    String::new()
                } else {
                    format!("{} ", partition(&g.partition))
                },
                g.bucket,
                g.level,
                g.files,
                plural(g.files),
                g.rows
            )
        })
        .collect();
    format!(
        "<td class=\"num\" title=\"{}\">{} <span class=\"muted\">({})</span></td>",
        esc(&tip.join("\n")),
        esc(&files(groups)),
        esc(&levels.join(" "))
    )
}
