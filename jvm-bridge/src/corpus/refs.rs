//! A table's references written with the released API: branches, tags and consumers
//! (`org.paimonparity.bridge.CorpusWriter`).

use std::path::Path;

use jni::objects::JValue;

use super::CLASS;
use crate::error::Result;
use crate::jvm::{path_arg, with_env};

/// `table.createBranch(name)` on the table at `table_dir`: an empty branch `branch/branch-<name>/` with the
/// table's latest schema (`BranchManager`); writers open it with the writer option `branch`.
///
/// Errors: [`Error::Java`] (the branch exists, a bad name), [`Error::Protocol`] (non-UTF-8 path).
pub fn create_branch(table_dir: &Path, name: &str) -> Result<()> {
    let dir = path_arg(table_dir)?;
    with_env(|env| {
        let dir = env.new_string(dir)?;
        let name = env.new_string(name)?;
        env.call_static_method(
            CLASS,
            "createBranch",
            "(Ljava/lang/String;Ljava/lang/String;)V",
            &[JValue::Object(&dir), JValue::Object(&name)],
        )?;
        Ok(())
    })
}

/// `table.createTag(name, snapshot)` on the table at `table_dir`: tag `tag/tag-<name>` of snapshot
/// `snapshot` (`TagManager`); with `time_retained` (an ISO-8601 duration such as `PT36H`, Java's
/// `Duration.parse`), `table.createTag(name, snapshot, duration)`, whose tag also records its create time
/// (the JVM's wall clock) and retention.
///
/// Errors: [`Error::Java`] (the tag exists, no such snapshot, a duration `Duration.parse` refuses),
/// [`Error::Protocol`] (non-UTF-8 path).
pub fn create_tag(
    table_dir: &Path,
    name: &str,
    snapshot: i64,
    time_retained: Option<&str>,
) -> Result<()> {
    let dir = path_arg(table_dir)?;
    with_env(|env| {
        let dir = env.new_string(dir)?;
        let name = env.new_string(name)?;
        let retained = match time_retained {
            Some(d) => env.new_string(d)?.into(),
            None => jni::objects::JObject::null(),
        };
        env.call_static_method(
            CLASS,
            "createTag",
            "(Ljava/lang/String;Ljava/lang/String;JLjava/lang/String;)V",
            &[
                JValue::Object(&dir),
                JValue::Object(&name),
                JValue::Long(snapshot),
                JValue::Object(&retained),
            ],
        )?;
        Ok(())
    })
}

/// `new ConsumerManager(fileIO, tablePath).resetConsumer(id, new Consumer(next_snapshot))` on the table at
/// `table_dir`: `consumer/consumer-<id>` records that consumer `id` reads from snapshot `next_snapshot` on,
/// where a streaming scan with `consumer-id=<id>` starts.
///
/// Errors: [`crate::error::Error::Java`] (the file cannot be written), [`crate::error::Error::Protocol`]
/// (non-UTF-8 path).
pub fn reset_consumer(table_dir: &Path, id: &str, next_snapshot: i64) -> Result<()> {
    let dir = path_arg(table_dir)?;
    with_env(|env| {
        let dir = env.new_string(dir)?;
        let id = env.new_string(id)?;
        env.call_static_method(
            CLASS,
            "resetConsumer",
            "(Ljava/lang/String;Ljava/lang/String;J)V",
            &[
                JValue::Object(&dir),
                JValue::Object(&id),
                JValue::Long(next_snapshot),
            ],
        )?;
        Ok(())
    })
}
