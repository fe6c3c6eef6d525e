//! The startup mode of a scan and the release's validation of its start options
//! (`CoreOptions#startupMode`, `SchemaValidation#validateStartupMode`), over the table's own options with the
//! scan's dynamic options laid over them (`Table.copy(dynamicOptions)`).

use crate::options::{InvalidOption, ValueError};
use crate::table::Table;

use super::super::ScanMode;

/// `scan.mode` (`CoreOptions.SCAN_MODE`, fallback key `log.scan`).
pub(super) const SCAN_MODE: [&str; 2] = ["scan.mode", "log.scan"];
/// `scan.snapshot-id` (`CoreOptions.SCAN_SNAPSHOT_ID`).
pub(super) const SCAN_SNAPSHOT_ID: &str = "scan.snapshot-id";
/// `scan.tag-name` (`CoreOptions.SCAN_TAG_NAME`).
pub(super) const SCAN_TAG_NAME: &str = "scan.tag-name";
/// `scan.watermark` (`CoreOptions.SCAN_WATERMARK`): a watermark in milliseconds.
pub(super) const SCAN_WATERMARK: &str = "scan.watermark";
/// `scan.timestamp-millis` (`CoreOptions.SCAN_TIMESTAMP_MILLIS`, fallback key `log.scan.timestamp-millis`).
pub(super) const SCAN_TIMESTAMP_MILLIS: [&str; 2] =
    ["scan.timestamp-millis", "log.scan.timestamp-millis"];
/// `scan.timestamp` (`CoreOptions.SCAN_TIMESTAMP`): a local date and time, read by every release.
pub(super) const SCAN_TIMESTAMP: &str = "scan.timestamp";
/// `scan.file-creation-time-millis` (`CoreOptions.SCAN_FILE_CREATION_TIME_MILLIS`).
pub(super) const SCAN_FILE_CREATION_TIME_MILLIS: &str = "scan.file-creation-time-millis";
/// `scan.creation-time-millis` (`CoreOptions.SCAN_CREATION_TIME_MILLIS`, 1.2.0 on).
pub(super) const SCAN_CREATION_TIME_MILLIS: &str = "scan.creation-time-millis";
/// `incremental-between` (`CoreOptions.INCREMENTAL_BETWEEN`): `<start>,<end>`, two snapshot ids or tags.
pub(super) const INCREMENTAL_BETWEEN: &str = "incremental-between";
/// `incremental-between-timestamp` (`CoreOptions.INCREMENTAL_BETWEEN_TIMESTAMP`).
pub(super) const INCREMENTAL_BETWEEN_TIMESTAMP: &str = "incremental-between-timestamp";
/// `incremental-between-scan-mode` (`CoreOptions.INCREMENTAL_BETWEEN_SCAN_MODE`, default `auto`).
pub(super) const INCREMENTAL_BETWEEN_SCAN_MODE: &str = "incremental-between-scan-mode";
pub(super) use super::auto_tag::INCREMENTAL_TO_AUTO_TAG;

/// `CoreOptions.StartupMode`, as `CoreOptions#startupMode` resolves it (`default` by the start options set,
/// `full` as `latest-full`); only the modes a scan here can be in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StartupMode {
    LatestFull,
    Latest,
    FromTimestamp,
    FromSnapshot,
    FromSnapshotFull,
    FromFileCreationTime,
    FromCreationTimestamp,
    CompactedFull,
    Incremental,
}

impl StartupMode {
    /// The mode as Java prints it (`StartupMode.toString()`, its option value).
    fn name(self) -> &'static str {
        match self {
            StartupMode::LatestFull => "latest-full",
            StartupMode::Latest => "latest",
            StartupMode::FromTimestamp => "from-timestamp",
            StartupMode::FromSnapshot => "from-snapshot",
            StartupMode::FromSnapshotFull => "from-snapshot-full",
            StartupMode::FromFileCreationTime => "from-file-creation-time",
            StartupMode::FromCreationTimestamp => "from-creation-timestamp",
            StartupMode::CompactedFull => "compacted-full",
            StartupMode::Incremental => "incremental",
        }
    }
}

/// The start options of one scan: the table's own, each replaced by the scan's dynamic option of the same
/// key ([`ScanMode::dynamic_options`]). A value is as written (parsed where it is used, as Java's getters do).
#[derive(Debug)]
pub(super) struct StartOptions {
    /// `scan.mode`, lower-cased; `default` when unset.
    mode: String,
    pub(super) snapshot_id: Option<String>,
    /// True when `scan.snapshot-id` is the table's own (not the scan's).
    pub(super) own_snapshot_id: bool,
    pub(super) tag_name: Option<String>,
    /// `scan.watermark`, the table's own (no scan sets it).
    pub(super) watermark: Option<String>,
    pub(super) timestamp_millis: Option<String>,
    pub(super) timestamp_text: Option<String>,
    pub(super) file_creation_time_millis: Option<String>,
    /// `None` also on a release before 1.2.0, which knows no such option.
    pub(super) creation_time_millis: Option<String>,
    /// The release knows `scan.creation-time-millis` and `scan.mode=from-creation-timestamp` (1.2.0 on).
    knows_creation_time: bool,
    pub(super) incremental_between: Option<String>,
    pub(super) incremental_between_timestamp: Option<String>,
    /// `incremental-between-scan-mode` as written.
    pub(super) incremental_scan_mode: Option<String>,
    /// `incremental-to-auto-tag`; `None` also on 1.0.x, which knows no such option.
    pub(super) incremental_to_auto_tag: Option<String>,
    /// The release knows `incremental-to-auto-tag` (1.1.1 on): it is in the validation's lists.
    knows_auto_tag: bool,
}

impl StartOptions {
    /// The start options of a scan of `table` in `mode`.
    pub(super) fn of(table: &Table, mode: ScanMode) -> StartOptions {
        let dynamic = mode.dynamic_options();
        let schema = table.schema();
        let own = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| schema.option(k))
                .map(str::to_owned)
        };
        let dynamic_snapshot = dynamic.get(SCAN_SNAPSHOT_ID).cloned();
        let own_snapshot_id =
            dynamic_snapshot.is_none() && schema.option(SCAN_SNAPSHOT_ID).is_some();
        let knows_creation_time = table.release() >= crate::line::PaimonRelease::V1_2_0;
        let knows_auto_tag = table.release() >= crate::line::PaimonRelease::V1_1_1;
        StartOptions {
            mode: dynamic
                .get(SCAN_MODE[0])
                .cloned()
                .or_else(|| own(&SCAN_MODE))
                .unwrap_or_else(|| "default".to_owned())
                .trim()
                .to_ascii_lowercase(),
            snapshot_id: dynamic_snapshot.or_else(|| own(&[SCAN_SNAPSHOT_ID])),
            own_snapshot_id,
            tag_name: own(&[SCAN_TAG_NAME]),
            watermark: own(&[SCAN_WATERMARK]),
            timestamp_millis: own(&SCAN_TIMESTAMP_MILLIS),
            timestamp_text: own(&[SCAN_TIMESTAMP]),
            file_creation_time_millis: own(&[SCAN_FILE_CREATION_TIME_MILLIS]),
            creation_time_millis: knows_creation_time
                .then(|| own(&[SCAN_CREATION_TIME_MILLIS]))
                .flatten(),
            knows_creation_time,
            incremental_between: own(&[INCREMENTAL_BETWEEN]),
            incremental_between_timestamp: own(&[INCREMENTAL_BETWEEN_TIMESTAMP]),
            incremental_scan_mode: own(&[INCREMENTAL_BETWEEN_SCAN_MODE]),
            incremental_to_auto_tag: knows_auto_tag
                .then(|| own(&[INCREMENTAL_TO_AUTO_TAG]))
                .flatten(),
            knows_auto_tag,
        }
    }

    /// The startup mode: an explicit `scan.mode` (`from-creation-timestamp` from 1.2.0, which
    /// [`Self::validate`] refuses before); else the one `CoreOptions#setDefaultValues` sets when the
    /// scan copies the table (`Table.copy`: the first of `scan.timestamp-millis`,
    /// `scan.file-creation-time-millis`, `scan.snapshot-id` set, then the increments, which the table's own
    /// options alone set when the table is loaded); else `CoreOptions#startupMode`'s (a tag
    /// or `scan.watermark` reads `from-snapshot`, `scan.creation-time-millis` `from-creation-timestamp`, `incremental-between` or
    /// `incremental-between-timestamp` `incremental`), else `latest-full`. Another `scan.mode` is refused
    /// before planning (`read_options`).
    pub(super) fn startup_mode(&self) -> StartupMode {
        match self.mode.as_str() {
            "latest" => StartupMode::Latest,
            "from-snapshot" => StartupMode::FromSnapshot,
            "from-snapshot-full" => StartupMode::FromSnapshotFull,
            "latest-full" | "full" => StartupMode::LatestFull,
            "compacted-full" => StartupMode::CompactedFull,
            "from-timestamp" => StartupMode::FromTimestamp,
            "from-file-creation-time" => StartupMode::FromFileCreationTime,
            "from-creation-timestamp" => StartupMode::FromCreationTimestamp,
            "incremental" => StartupMode::Incremental,
            _ if self.timestamp_millis.is_some() || self.timestamp_text.is_some() => {
                StartupMode::FromTimestamp
            }
            _ if self.file_creation_time_millis.is_some() => StartupMode::FromFileCreationTime,
            _ if self.snapshot_id.is_some() && self.own_snapshot_id => StartupMode::FromSnapshot,
            // Set when the table is loaded, from its own options alone: a scan's `scan.snapshot-id` then
            // finds `scan.mode` set.
            _ if self.incremental_between.is_some()
                || self.incremental_between_timestamp.is_some()
                || self.incremental_to_auto_tag.is_some() =>
            {
                StartupMode::Incremental
            }
            _ if self.snapshot_id.is_some()
                || self.tag_name.is_some()
                || self.watermark.is_some() =>
            {
                StartupMode::FromSnapshot
            }
            _ if self.creation_time_millis.is_some() => StartupMode::FromCreationTimestamp,
            _ => StartupMode::LatestFull,
        }
    }

    /// `SchemaValidation#validateStartupMode` for the start options this reader plans, in the release's order
    /// of checks.
    ///
    /// Errors: the first check that fails, as an [`InvalidOption`] of the option named first in the
    /// release's message (`must set only one key in [...] when you use from-snapshot for scan.mode`, `[X] must
    /// be null when you set [Y]`, `X must be null when you use M for scan.mode`).
    pub(super) fn validate(&self) -> Result<(), InvalidOption> {
        let set = |key: &str| -> bool {
            match key {
                SCAN_SNAPSHOT_ID => self.snapshot_id.is_some(),
                SCAN_TAG_NAME => self.tag_name.is_some(),
                SCAN_WATERMARK => self.watermark.is_some(),
                k if k == SCAN_TIMESTAMP_MILLIS[0] => self.timestamp_millis.is_some(),
                SCAN_TIMESTAMP => self.timestamp_text.is_some(),
                SCAN_FILE_CREATION_TIME_MILLIS => self.file_creation_time_millis.is_some(),
                INCREMENTAL_BETWEEN => self.incremental_between.is_some(),
                INCREMENTAL_BETWEEN_TIMESTAMP => self.incremental_between_timestamp.is_some(),
                INCREMENTAL_TO_AUTO_TAG => self.incremental_to_auto_tag.is_some(),
                _ => false,
            }
        };
        let conflicts = |illegal: &[&str], legal: &str| -> Result<(), InvalidOption> {
            match illegal.iter().find(|k| set(k)) {
                Some(k) => Err(InvalidOption::new(
                    k,
                    ValueError::ConflictsWith(legal.into()),
                )),
                None => Ok(()),
            }
        };
        let timestamp = SCAN_TIMESTAMP_MILLIS[0];
        let mode = self.startup_mode();
        if mode == StartupMode::FromCreationTimestamp && !self.knows_creation_time {
            return Err(InvalidOption::new(
                SCAN_MODE[0],
                ValueError::UnknownValue(self.mode.clone()),
            ));
        }
        let present = |key: &str| -> Result<(), InvalidOption> {
            match set(key) {
                true => Ok(()),
                false => Err(InvalidOption::new(
                    key,
                    ValueError::MissingInMode(mode.name().into()),
                )),
            }
        };
        match mode {
            StartupMode::FromTimestamp => {
                if set(timestamp) == set(SCAN_TIMESTAMP) {
                    return Err(InvalidOption::new(
                        SCAN_MODE[0],
                        ValueError::OnlyOneInMode(
                            "scan.timestamp-millis,scan.timestamp".into(),
                            mode.name().into(),
                        ),
                    ));
                }
                conflicts(
                    &[
                        SCAN_SNAPSHOT_ID,
                        SCAN_FILE_CREATION_TIME_MILLIS,
                        SCAN_TAG_NAME,
                        INCREMENTAL_BETWEEN_TIMESTAMP,
                        INCREMENTAL_BETWEEN,
                        INCREMENTAL_TO_AUTO_TAG,
                    ],
                    "scan.timestamp-millis,scan.timestamp",
                )
            }
            StartupMode::FromSnapshot => {
                let keys = [SCAN_SNAPSHOT_ID, SCAN_TAG_NAME, SCAN_WATERMARK];
                if keys.iter().filter(|k| set(k)).count() != 1 {
                    return Err(InvalidOption::new(
                        SCAN_SNAPSHOT_ID,
                        ValueError::OnlyOneInMode(
                            "scan.snapshot-id,scan.tag-name,scan.watermark".into(),
                            mode.name().into(),
                        ),
                    ));
                }
                conflicts(
                    &[
                        timestamp,
                        SCAN_TIMESTAMP,
                        SCAN_FILE_CREATION_TIME_MILLIS,
                        INCREMENTAL_BETWEEN_TIMESTAMP,
                        INCREMENTAL_BETWEEN,
                        INCREMENTAL_TO_AUTO_TAG,
                    ],
                    "scan.snapshot-id,scan.tag-name",
                )
            }
            StartupMode::FromSnapshotFull => {
                present(SCAN_SNAPSHOT_ID)?;
                conflicts(
                    &[
                        timestamp,
                        SCAN_TIMESTAMP,
                        SCAN_FILE_CREATION_TIME_MILLIS,
                        SCAN_TAG_NAME,
                        INCREMENTAL_BETWEEN_TIMESTAMP,
                        INCREMENTAL_BETWEEN,
                        INCREMENTAL_TO_AUTO_TAG,
                    ],
                    SCAN_SNAPSHOT_ID,
                )
            }
            StartupMode::FromFileCreationTime => {
                present(SCAN_FILE_CREATION_TIME_MILLIS)?;
                conflicts(
                    &[
                        SCAN_SNAPSHOT_ID,
                        timestamp,
                        SCAN_TAG_NAME,
                        INCREMENTAL_BETWEEN_TIMESTAMP,
                        INCREMENTAL_BETWEEN,
                        INCREMENTAL_TO_AUTO_TAG,
                    ],
                    SCAN_FILE_CREATION_TIME_MILLIS,
                )
            }
            StartupMode::Incremental => {
                let legal = if self.knows_auto_tag {
                    "incremental-between,incremental-between-timestamp,incremental-to-auto-tag"
                } else {
                    "incremental-between,incremental-between-timestamp"
                };
                let keys = [
                    INCREMENTAL_BETWEEN,
                    INCREMENTAL_BETWEEN_TIMESTAMP,
                    INCREMENTAL_TO_AUTO_TAG,
                ];
                if keys.iter().filter(|k| set(k)).count() != 1 {
                    return Err(InvalidOption::new(
                        SCAN_MODE[0],
                        ValueError::OnlyOneInMode(legal.into(), mode.name().into()),
                    ));
                }
                conflicts(
                    &[
                        SCAN_SNAPSHOT_ID,
                        timestamp,
                        SCAN_FILE_CREATION_TIME_MILLIS,
                        SCAN_TIMESTAMP,
                        SCAN_TAG_NAME,
                    ],
                    legal,
                )
            }
            StartupMode::LatestFull
            | StartupMode::Latest
            | StartupMode::CompactedFull
            | StartupMode::FromCreationTimestamp => {
                let keys = [
                    timestamp,
                    SCAN_FILE_CREATION_TIME_MILLIS,
                    SCAN_TIMESTAMP,
                    SCAN_SNAPSHOT_ID,
                    SCAN_TAG_NAME,
                    INCREMENTAL_BETWEEN_TIMESTAMP,
                    INCREMENTAL_BETWEEN,
                    INCREMENTAL_TO_AUTO_TAG,
                ];
                match keys.iter().find(|k| set(k)) {
                    Some(k) => Err(InvalidOption::new(
                        k,
                        ValueError::MustBeNullInMode(mode.name().into()),
                    )),
                    None => Ok(()),
                }
            }
        }
    }
}

/// `value` of start option `key` as a long (`Long.parseLong` of the trimmed text, as `Options#get` reads it).
///
/// Errors: [`ValueError::NotALong`].
pub(super) fn long_of(key: &str, value: &str) -> Result<i64, InvalidOption> {
    value
        .trim()
        .parse::<i64>()
        .map_err(|_| InvalidOption::new(key, ValueError::NotALong(value.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(mode: &str, set: &[&str]) -> StartOptions {
        let value = |key: &str| set.contains(&key).then(|| "1".to_owned());
        StartOptions {
            mode: mode.to_owned(),
            snapshot_id: value(SCAN_SNAPSHOT_ID),
            own_snapshot_id: false,
            tag_name: value(SCAN_TAG_NAME),
            watermark: value(SCAN_WATERMARK),
            timestamp_millis: value(SCAN_TIMESTAMP_MILLIS[0]),
            timestamp_text: value(SCAN_TIMESTAMP),
            file_creation_time_millis: value(SCAN_FILE_CREATION_TIME_MILLIS),
            creation_time_millis: value(SCAN_CREATION_TIME_MILLIS),
            knows_creation_time: true,
            incremental_between: value(INCREMENTAL_BETWEEN),
            incremental_between_timestamp: value(INCREMENTAL_BETWEEN_TIMESTAMP),
            incremental_scan_mode: None,
            incremental_to_auto_tag: value(INCREMENTAL_TO_AUTO_TAG),
            knows_auto_tag: true,
        }
    }

    #[test]
    fn the_default_mode_is_the_one_set_default_values_picks_then_startup_modes() {
        // `setDefaultValues`: the timestamp, then the file creation time, then the snapshot id.
        for (set, mode) in [
            (
                &[SCAN_SNAPSHOT_ID, "scan.timestamp-millis"][..],
                StartupMode::FromTimestamp,
            ),
            (
                &[SCAN_TAG_NAME, SCAN_FILE_CREATION_TIME_MILLIS],
                StartupMode::FromFileCreationTime,
            ),
            (
                &[SCAN_TAG_NAME, SCAN_CREATION_TIME_MILLIS],
                StartupMode::FromSnapshot,
            ),
            (
                &[SCAN_CREATION_TIME_MILLIS],
                StartupMode::FromCreationTimestamp,
            ),
            // `scan.watermark` reads `from-snapshot` (`CoreOptions#startupMode`); `setDefaultValues` does not
            // look at it, so a file creation time or an increment wins.
            (&[SCAN_WATERMARK], StartupMode::FromSnapshot),
            (
                &[SCAN_WATERMARK, SCAN_FILE_CREATION_TIME_MILLIS],
                StartupMode::FromFileCreationTime,
            ),
            (
                &[SCAN_WATERMARK, INCREMENTAL_BETWEEN],
                StartupMode::Incremental,
            ),
            (&[], StartupMode::LatestFull),
        ] {
            assert_eq!(options("default", set).startup_mode(), mode, "{set:?}");
        }
        // An explicit mode wins; `full` is `latest-full`.
        assert_eq!(
            options("full", &[SCAN_SNAPSHOT_ID]).startup_mode(),
            StartupMode::LatestFull
        );
    }

    #[test]
    fn validation_fails_as_the_release_words_it() {
        let message = |mode: &str, set: &[&str]| {
            options(mode, set)
                .validate()
                .map_err(|e| e.to_string())
                .err()
        };
        assert_eq!(
            message("from-snapshot", &[SCAN_SNAPSHOT_ID, SCAN_TAG_NAME]).unwrap(),
            "option `scan.snapshot-id`: must set only one key in \
             [scan.snapshot-id,scan.tag-name,scan.watermark] when you use from-snapshot for scan.mode"
        );
        assert_eq!(
            message("from-snapshot-full", &[SCAN_SNAPSHOT_ID, SCAN_TAG_NAME]).unwrap(),
            "option `scan.tag-name`: must be null when you set scan.snapshot-id"
        );
        assert_eq!(
            message(
                "default",
                &[SCAN_SNAPSHOT_ID, SCAN_FILE_CREATION_TIME_MILLIS]
            )
            .unwrap(),
            "option `scan.snapshot-id`: must be null when you set scan.file-creation-time-millis"
        );
        assert_eq!(
            message("compacted-full", &[SCAN_TAG_NAME]).unwrap(),
            "option `scan.tag-name`: must be null when you use compacted-full for scan.mode"
        );
        assert_eq!(
            message("from-snapshot-full", &[]).unwrap(),
            "option `scan.snapshot-id`: can not be null when you use from-snapshot-full for scan.mode"
        );
        // A scan that sets `scan.snapshot-id` over a table's own `scan.watermark` (the streams from a
        // snapshot): one key too many. `latest-full` and `from-snapshot-full` do not check it.
        assert_eq!(
            message("from-snapshot", &[SCAN_SNAPSHOT_ID, SCAN_WATERMARK]).unwrap(),
            "option `scan.snapshot-id`: must set only one key in \
             [scan.snapshot-id,scan.tag-name,scan.watermark] when you use from-snapshot for scan.mode"
        );
        assert_eq!(message("latest-full", &[SCAN_WATERMARK]), None);
        assert_eq!(
            message("from-snapshot-full", &[SCAN_SNAPSHOT_ID, SCAN_WATERMARK]),
            None
        );
        // `scan.creation-time-millis` conflicts with nothing.
        assert_eq!(message("latest-full", &[SCAN_CREATION_TIME_MILLIS]), None);
        assert_eq!(
            message(
                "from-snapshot",
                &[SCAN_SNAPSHOT_ID, SCAN_CREATION_TIME_MILLIS]
            ),
            None
        );
        let mut before_1_2 = options("from-creation-timestamp", &[]);
        before_1_2.knows_creation_time = false;
        assert!(before_1_2
            .validate()
            .unwrap_err()
            .to_string()
            .contains("unknown value"));
    }
}
