//! What each release does with a table a later release wrote, where that is not a native difference
//! ([`ReleaseLimit`]): the limits [`super::check_tables`] accepts, per corpus, release and scan.

/// What a release does with a table a later release wrote that is not a native difference: a feature the
/// native reader refuses by name as that release (it does not reproduce how the release reads it), or a
/// failure of the released reader itself. The run's problem must contain `problem`.
#[derive(Clone, Copy)]
pub(crate) struct ReleaseLimit {
    pub(crate) corpus: &'static str,
    pub(crate) releases: &'static [&'static str],
    pub(crate) modes: &'static [&'static str],
    pub(crate) problem: &'static str,
}

/// Both readers refuse a table with a BLOB column as a release before 1.4.1, each in its own words.
pub(crate) const BLOB_UNKNOWN: &str =
    "(its schema parser fails on it; BLOB is from 1.4.1); stock reader: \
     java.lang.IllegalArgumentException: Could not parse type";

pub(crate) const EVERY_MODE: &[&str] = &["stream", "stream-full", "latest-full", "batch"];

/// `corpus` (with a BLOB column) as the releases before 1.4.1 read it, in every mode: both readers refuse it.
pub(crate) const fn blob_unknown(corpus: &'static str) -> ReleaseLimit {
    ReleaseLimit {
        corpus,
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1"],
        modes: EVERY_MODE,
        problem: BLOB_UNKNOWN,
    }
}

/// c32 (BLOB updates with placeholders) as each release reads it, for the table and its `$row_tracking`.
pub(crate) const C32_BLOB_UNKNOWN: ReleaseLimit = blob_unknown("c32-blob-update");

/// 1.4 takes one chain of `.blob` files per column (`SpecialFieldBunch`) and refuses a newer file that
/// overlaps it.
pub(crate) const C32_1_4_MERGED: ReleaseLimit = ReleaseLimit {
    corpus: "c32-blob-update",
    releases: &["1.4.2"],
    modes: &["latest-full", "batch"],
    problem: "stock reader: java.lang.IllegalArgumentException: Blob/vector-store file with overlapping row id should have decreasing sequence number.",
};

/// c42's vector-store corpora as 1.x reads them (the table and its system tables; [`check_tables`] applies
/// them to every scan): before 1.4.1 the schema's VECTOR columns fail to parse; 1.4.x refuses data evolution
/// with deletion vectors, and fails opening a table with a VECTOR column (as `system_tables` records).
pub(crate) const C42_VECTOR_UNKNOWN: &str =
    "VECTOR is from 1.4.1); stock reader: java.lang.IllegalArgumentException";
pub(crate) const C42_1_4_REJECTS_DV: &str =
    "stock reader: java.lang.IllegalArgumentException: Data evolution config \
     must disabled with deletion-vectors.enabled";
pub(crate) const C42_LIMITS: [ReleaseLimit; 6] = [
    ReleaseLimit {
        corpus: "c42-vector-store",
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1"],
        modes: EVERY_MODE,
        problem: C42_VECTOR_UNKNOWN,
    },
    ReleaseLimit {
        corpus: "c42-vector-store-rolled",
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1"],
        modes: EVERY_MODE,
        problem: C42_VECTOR_UNKNOWN,
    },
    ReleaseLimit {
        corpus: "c42-vector-store",
        releases: &["1.4.2"],
        modes: EVERY_MODE,
        problem: C42_1_4_REJECTS_DV,
    },
    ReleaseLimit {
        corpus: "c42-vector-store-rolled",
        releases: &["1.4.2"],
        modes: EVERY_MODE,
        problem: C42_1_4_REJECTS_DV,
    },
    ReleaseLimit {
        corpus: "c42-vector-store-no-dv",
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1"],
        modes: EVERY_MODE,
        problem: C42_VECTOR_UNKNOWN,
    },
    ReleaseLimit {
        corpus: "c42-vector-store-no-dv",
        releases: &["1.4.2"],
        modes: EVERY_MODE,
        problem: "UnsupportedOperationException: Unsupported type: VECTOR<FLOAT, 3>",
    },
];

/// c43: a stream reads the file of an update of `name` alone, whose NOT NULL BLOB column it does not hold;
/// the released reader fails on it (1.4.2 and 2.0.0), and so does the native reader.
pub(crate) const C43_STREAMED: ReleaseLimit = ReleaseLimit {
    corpus: "c43-data-evolution-not-null",
    releases: &["1.4.2", "2.0.0"],
    modes: &["stream", "stream-full"],
    problem: "Required column is missing in data file. Col: [payload]",
};

/// c43 and c44 (BLOB columns) as releases before 1.4.1, which do not know BLOB.
pub(crate) const C43_BLOB_UNKNOWN: ReleaseLimit = blob_unknown("c43-data-evolution-not-null");
pub(crate) const C44_BLOB_UNKNOWN: ReleaseLimit = blob_unknown("c44-blob-rolled");

/// c47 (`blob-view-field`) as the releases before 1.4.1, which do not know BLOB, and as 1.4.2, which knows
/// no BLOB views: it takes the column for one of `.blob` files and parses the views stored in the Parquet
/// file as BLOB descriptors, failing on each split (`BufferUnderflowException`, or `OutOfMemoryError` for a
/// length read from a view's bytes), for the table and its `$row_tracking`. The native reader as 1.4.2
/// refuses the column by name; the run is the released reader's failure.
pub(crate) const C47_BLOB_UNKNOWN: ReleaseLimit = blob_unknown("c47-blob-view");
pub(crate) const C47_1_4_FAILS: ReleaseLimit = ReleaseLimit {
    corpus: "c47-blob-view",
    releases: &["1.4.2"],
    modes: EVERY_MODE,
    problem: "bucket 0: stock reader: java.",
};

/// 1.4's blob reader cannot size a placeholder (index length -2).
pub(crate) const C32_1_4_STREAMED: ReleaseLimit = ReleaseLimit {
    corpus: "c32-blob-update",
    releases: &["1.4.2"],
    modes: &["stream", "stream-full"],
    problem: "stock reader: java.lang.NegativeArraySizeException",
};

/// 2.0.0 streams an update's `.blob` file alone and fails on its placeholders (`BlobPlaceholder.toData`);
/// batch and latest-full scans read the column's files together and are identical.
pub(crate) const C32_2_0_STREAMED: ReleaseLimit = ReleaseLimit {
    corpus: "c32-blob-update",
    releases: &["2.0.0"],
    modes: &["stream", "stream-full"],
    problem: "stock reader: java.lang.UnsupportedOperationException: Should never call this method for placeholder blob.",
};

/// The refusal of a corpus in a text format by the lines before 1.4.2.
const fn text_format_refused(corpus: &'static str, problem: &'static str) -> ReleaseLimit {
    ReleaseLimit {
        corpus,
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1"],
        modes: EVERY_MODE,
        problem,
    }
}

/// Every supported release.
const EVERY_RELEASE: &[&str] = &[
    "1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1", "1.4.2", "2.0.0",
];

/// The releases that know `incremental-to-auto-tag` (1.1.1 on).
const AUTO_TAG_RELEASES: &[&str] = &["1.1.1", "1.2.0", "1.3.1", "1.4.2", "2.0.0"];

/// The releases before 1.4.
const BEFORE_1_4: &[&str] = &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1"];

/// A lost data file read by a release without `scan.ignore-lost-files`: the released reader's
/// `FileNotFoundException` (the native reader fails on the same file).
const LOST_FILE_FAILS: &str = "stock reader: java.io.FileNotFoundException";

/// As 1.0-1.2 the table is refused (no factory before 1.3.0), as 1.3.1 its files (1.3's parser is not modelled).
const CSV_REFUSED: &str = "the `csv` file format is read as Paimon 1.";

pub(crate) const RELEASE_LIMITS: &[ReleaseLimit] = &[
    // BLOB is from 1.4.1: earlier schema parsers fail on the type, and the native reader refuses the table
    // as that release (`native_reader::line::TypeNames`).
    blob_unknown("c28-blob"),
    blob_unknown("c28-blob-split-by-open-cost"),
    C32_BLOB_UNKNOWN,
    C32_1_4_MERGED,
    C32_1_4_STREAMED,
    C32_2_0_STREAMED,
    C43_STREAMED,
    C43_BLOB_UNKNOWN,
    C44_BLOB_UNKNOWN,
    C47_BLOB_UNKNOWN,
    C47_1_4_FAILS,
    // `scan.ignore-lost-files` is from 1.4: before, both readers fail on the lost data file (c53 streams
    // read its changelog files, which are all there).
    ReleaseLimit {
        corpus: "c53-ignore-lost-and-corrupt-files",
        releases: BEFORE_1_4,
        modes: &["latest-full", "batch"],
        problem: LOST_FILE_FAILS,
    },
    ReleaseLimit {
        corpus: "c54-append-ignore-lost-and-corrupt-files",
        releases: BEFORE_1_4,
        modes: EVERY_MODE,
        problem: LOST_FILE_FAILS,
    },
    // A table's own `scan.snapshot-id` fails a `latest-full` scan on every release, on both readers.
    ReleaseLimit {
        corpus: "c57-table-scan-snapshot-id",
        releases: EVERY_RELEASE,
        modes: &["latest-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: scan.snapshot-id must be null when you use latest-full",
    },
    // A table's own `scan.tag-name` fails every scan that sets `scan.snapshot-id`, and `latest-full`, on
    // every release, on both readers.
    ReleaseLimit {
        corpus: "c58-table-scan-tag-name",
        releases: EVERY_RELEASE,
        modes: &["stream"],
        problem: "stock reader: java.lang.IllegalArgumentException: must set only one key in [scan.snapshot-id,scan.tag-name,scan.watermark]",
    },
    ReleaseLimit {
        corpus: "c58-table-scan-tag-name",
        releases: EVERY_RELEASE,
        modes: &["stream-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: [scan.tag-name] must be null when you set [scan.snapshot-id]",
    },
    ReleaseLimit {
        corpus: "c58-table-scan-tag-name",
        releases: EVERY_RELEASE,
        modes: &["latest-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: scan.tag-name must be null when you use latest-full",
    },
    // A table's own `scan.timestamp-millis`, `scan.file-creation-time-millis` or `scan.timestamp` fails every
    // scan that sets
    // `scan.snapshot-id`, and `latest-full`, on every release, on both readers.
    ReleaseLimit {
        corpus: "c59-table-scan-timestamp-millis",
        releases: EVERY_RELEASE,
        modes: &["stream"],
        problem: "stock reader: java.lang.IllegalArgumentException: [scan.timestamp-millis] must be null when you set [scan.snapshot-id,scan.tag-name]",
    },
    ReleaseLimit {
        corpus: "c59-table-scan-timestamp-millis",
        releases: EVERY_RELEASE,
        modes: &["stream-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: [scan.timestamp-millis] must be null when you set [scan.snapshot-id]",
    },
    ReleaseLimit {
        corpus: "c59-table-scan-timestamp-millis",
        releases: EVERY_RELEASE,
        modes: &["latest-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: scan.timestamp-millis must be null when you use latest-full",
    },
    ReleaseLimit {
        corpus: "c60-table-scan-file-creation-time",
        releases: EVERY_RELEASE,
        modes: &["stream"],
        problem: "stock reader: java.lang.IllegalArgumentException: [scan.file-creation-time-millis] must be null when you set [scan.snapshot-id,scan.tag-name]",
    },
    ReleaseLimit {
        corpus: "c60-table-scan-file-creation-time",
        releases: EVERY_RELEASE,
        modes: &["stream-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: [scan.file-creation-time-millis] must be null when you set [scan.snapshot-id]",
    },
    ReleaseLimit {
        corpus: "c60-table-scan-file-creation-time",
        releases: EVERY_RELEASE,
        modes: &["latest-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: scan.file-creation-time-millis must be null when you use latest-full",
    },
    ReleaseLimit {
        corpus: "c63-table-scan-timestamp",
        releases: EVERY_RELEASE,
        modes: &["stream"],
        problem: "stock reader: java.lang.IllegalArgumentException: [scan.timestamp] must be null when you set [scan.snapshot-id,scan.tag-name]",
    },
    ReleaseLimit {
        corpus: "c63-table-scan-timestamp",
        releases: EVERY_RELEASE,
        modes: &["stream-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: [scan.timestamp] must be null when you set [scan.snapshot-id]",
    },
    ReleaseLimit {
        corpus: "c63-table-scan-timestamp",
        releases: EVERY_RELEASE,
        modes: &["latest-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: scan.timestamp must be null when you use latest-full",
    },
    // A table's own `incremental-between` conflicts with the options the streams and `latest-full` set:
    // both readers fail the release's validation (the batch scan reads the increment).
    ReleaseLimit {
        corpus: "c67-incremental-between",
        releases: EVERY_RELEASE,
        modes: &["stream"],
        problem: "stock reader: java.lang.IllegalArgumentException: [incremental-between] must be null when you set [scan.snapshot-id,scan.tag-name]",
    },
    ReleaseLimit {
        corpus: "c67-incremental-between",
        releases: EVERY_RELEASE,
        modes: &["stream-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: [incremental-between] must be null when you set [scan.snapshot-id]",
    },
    ReleaseLimit {
        corpus: "c67-incremental-between",
        releases: EVERY_RELEASE,
        modes: &["latest-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: incremental-between must be null when you use latest-full for scan.mode",
    },
    ReleaseLimit {
        corpus: "c68-incremental-between-changelog",
        releases: EVERY_RELEASE,
        modes: &["stream"],
        problem: "stock reader: java.lang.IllegalArgumentException: [incremental-between] must be null when you set [scan.snapshot-id,scan.tag-name]",
    },
    ReleaseLimit {
        corpus: "c68-incremental-between-changelog",
        releases: EVERY_RELEASE,
        modes: &["stream-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: [incremental-between] must be null when you set [scan.snapshot-id]",
    },
    ReleaseLimit {
        corpus: "c68-incremental-between-changelog",
        releases: EVERY_RELEASE,
        modes: &["latest-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: incremental-between must be null when you use latest-full for scan.mode",
    },
    // The same for `incremental-between-timestamp`.
    ReleaseLimit {
        corpus: "c69-incremental-between-timestamp",
        releases: EVERY_RELEASE,
        modes: &["stream"],
        problem: "stock reader: java.lang.IllegalArgumentException: [incremental-between-timestamp] must be null when you set [scan.snapshot-id,scan.tag-name]",
    },
    ReleaseLimit {
        corpus: "c69-incremental-between-timestamp",
        releases: EVERY_RELEASE,
        modes: &["stream-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: [incremental-between-timestamp] must be null when you set [scan.snapshot-id]",
    },
    ReleaseLimit {
        corpus: "c69-incremental-between-timestamp",
        releases: EVERY_RELEASE,
        modes: &["latest-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: incremental-between-timestamp must be null when you use latest-full for scan.mode",
    },
    // A table's own `scan.watermark` fails a stream from a snapshot (which sets `scan.snapshot-id`) on every
    // release, on both readers; `stream-full` and `latest-full` do not look at it.
    ReleaseLimit {
        corpus: "c71-table-scan-watermark",
        releases: EVERY_RELEASE,
        modes: &["stream"],
        problem: "stock reader: java.lang.IllegalArgumentException: must set only one key in [scan.snapshot-id,scan.tag-name,scan.watermark]",
    },
    ReleaseLimit {
        corpus: "c70-incremental-between-timestamp-text",
        releases: EVERY_RELEASE,
        modes: &["stream"],
        problem: "stock reader: java.lang.IllegalArgumentException: [incremental-between-timestamp] must be null when you set [scan.snapshot-id,scan.tag-name]",
    },
    ReleaseLimit {
        corpus: "c70-incremental-between-timestamp-text",
        releases: EVERY_RELEASE,
        modes: &["stream-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: [incremental-between-timestamp] must be null when you set [scan.snapshot-id]",
    },
    ReleaseLimit {
        corpus: "c70-incremental-between-timestamp-text",
        releases: EVERY_RELEASE,
        modes: &["latest-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: incremental-between-timestamp must be null when you use latest-full for scan.mode",
    },
    // 1.0.x reads `incremental-between-timestamp` as two longs (`Long.parseLong`): c70's local times fail the
    // batch scan on both readers.
    ReleaseLimit {
        corpus: "c70-incremental-between-timestamp-text",
        releases: &["1.0.0", "1.0.1"],
        modes: &["batch"],
        problem: "stock reader: java.lang.NumberFormatException: For input string: \"",
    },
    // Two records of one key with the same sequence number under `sort-engine=min-heap`: the released
    // reader orders them by its `java.util.PriorityQueue`, which the native reader refuses by name to guess
    // (the merge reads: latest-full and batch; the streams read each commit's file alone).
    ReleaseLimit {
        corpus: "c65-sort-engine-min-heap-tie",
        releases: EVERY_RELEASE,
        modes: &["latest-full", "batch"],
        problem: "unsupported: sort-engine=min-heap: two records of one key have the same sequence (0)",
    },
    // VARIANT is from 1.1.0; the bridge's Arrow export of it from 1.4 (the releases' paimon-arrow refuses it
    // before). 1.3.x and 1.4.x rebuild shredded variants; the native reader as 1.1/1.2 refuses them.
    ReleaseLimit {
        corpus: "c36-variant-shredding",
        releases: &["1.0.0", "1.0.1"],
        modes: EVERY_MODE,
        problem: "VARIANT is from 1.1.0); stock reader: java.lang.IllegalArgumentException: Could not parse type",
    },
    ReleaseLimit {
        corpus: "c36-variant-shredding",
        releases: &["1.1.1", "1.2.0", "1.3.1"],
        modes: EVERY_MODE,
        problem: "(VARIANT): the Arrow export of Paimon",
    },
    // The `row` file format is from 2.0.0; before 1.4.1 the schema's VECTOR columns already fail to parse.
    ReleaseLimit {
        corpus: "c37-row-format",
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1"],
        modes: EVERY_MODE,
        problem: "VECTOR is from 1.4.1); stock reader: java.lang.IllegalArgumentException",
    },
    ReleaseLimit {
        corpus: "c37-row-format",
        releases: &["1.4.2"],
        modes: EVERY_MODE,
        problem: "Could not find any factory for identifier 'row'",
    },
    // The Lance format is read as 2.0.0 (paimon-lance with lance-core 0.39); before 1.4.1 the schema's VECTOR
    // column already fails to parse, and 1.4.2's bundle carries no `lance` factory.
    ReleaseLimit {
        corpus: "c41-lance-format",
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1"],
        modes: EVERY_MODE,
        problem: "VECTOR is from 1.4.1); stock reader: java.lang.IllegalArgumentException",
    },
    ReleaseLimit {
        corpus: "c41-lance-format",
        releases: &["1.4.2"],
        modes: EVERY_MODE,
        problem: "Could not find any factory for identifier 'lance'",
    },
    ReleaseLimit {
        corpus: "c41-lance-primary-key",
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1", "1.4.2"],
        modes: EVERY_MODE,
        problem: "Could not find any factory for identifier 'lance'",
    },
    // The Vortex format likewise (paimon-vortex 2.0.0, built with vortex-jni 0.76's natives).
    ReleaseLimit {
        corpus: "c45-vortex-format",
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1"],
        modes: EVERY_MODE,
        problem: "VECTOR is from 1.4.1); stock reader: java.lang.IllegalArgumentException",
    },
    ReleaseLimit {
        corpus: "c45-vortex-format",
        releases: &["1.4.2"],
        modes: EVERY_MODE,
        problem: "Could not find any factory for identifier 'vortex'",
    },
    ReleaseLimit {
        corpus: "c45-vortex-primary-key",
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1", "1.4.2"],
        modes: EVERY_MODE,
        problem: "Could not find any factory for identifier 'vortex'",
    },
    // The text formats (`csv`, `json`, `text`) are read natively as 1.4.2 and 2.0.0; as earlier lines the
    // native reader refuses them by name (1.0-1.2 have no factory, 1.3's parsers are not modelled).
    text_format_refused("c46-csv-format", CSV_REFUSED),
    text_format_refused("c46-csv-line-breaks", CSV_REFUSED),
    text_format_refused("c46-csv-primary-key", CSV_REFUSED),
    text_format_refused("c46-json-format", "has type VECTOR"),
    text_format_refused(
        "c46-json-primary-key",
        "the `json` file format is read as Paimon 1.",
    ),
    text_format_refused(
        "c46-text-format",
        "the `text` file format is read as Paimon 1.4.2 and later",
    ),
    // The shared-shredding MAP layout is from 2.0.0: earlier Parquet readers fail on its struct, and the
    // native reader as them refuses it.
    ReleaseLimit {
        corpus: "c38-map-shared-shredding",
        releases: &["1.0.0", "1.0.1", "1.1.1"],
        modes: EVERY_MODE,
        problem: "InvalidRecordException: key_value not found",
    },
    ReleaseLimit {
        corpus: "c38-map-shared-shredding",
        releases: &["1.2.0", "1.3.1"],
        modes: EVERY_MODE,
        problem: "Parquet map group type should only have one middle level",
    },
    ReleaseLimit {
        corpus: "c38-map-shared-shredding",
        releases: &["1.4.2"],
        modes: EVERY_MODE,
        problem: "Failed to create FileRecordReader",
    },
    ReleaseLimit {
        corpus: "c38-map-shared-shredding-lz4",
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1"],
        modes: EVERY_MODE,
        problem: "SchemaEvolution$IllegalEvolutionException",
    },
    ReleaseLimit {
        corpus: "c38-map-shared-shredding-lz4",
        releases: &["1.4.2"],
        modes: EVERY_MODE,
        problem: "Failed to create FileRecordReader",
    },
    ReleaseLimit {
        corpus: "c38-map-shared-shredding-orc",
        releases: &["1.0.0", "1.0.1", "1.1.1", "1.2.0", "1.3.1"],
        modes: EVERY_MODE,
        problem: "SchemaEvolution$IllegalEvolutionException",
    },
    ReleaseLimit {
        corpus: "c38-map-shared-shredding-orc",
        releases: &["1.4.2"],
        modes: EVERY_MODE,
        problem: "Failed to create FileRecordReader",
    },
    // 1.3.x and 1.4.x validate the schema on read and refuse data evolution with deletion vectors.
    ReleaseLimit {
        corpus: "c27-data-evolution-deletes",
        releases: &["1.3.1", "1.4.2"],
        modes: EVERY_MODE,
        problem: "stock reader: java.lang.IllegalArgumentException: Data evolution config must disabled with deletion-vectors.enabled",
    },
    // 1.0.x and 1.1.x read every split of keyed files through the fallback branch's reader
    // (`minKey().getFieldCount() > 0`), whichever branch planned it: refused by name per split
    // (`native_reader::line::FallbackBranch`); 1.0.x fails on the main branch's schema there.
    ReleaseLimit {
        corpus: "c26-fallback-branch",
        releases: &["1.0.0", "1.0.1", "1.1.1"],
        modes: EVERY_MODE,
        problem: "a split of keyed files (a primary-key table's) goes to the fallback branch's reader",
    },
    // 1.2.0's `FallbackReadFileStoreTable.Read#createReader` casts every split to `FallbackDataSplit`;
    // a streaming scan's splits are plain `DataSplit`s, so the released reader fails on them.
    ReleaseLimit {
        corpus: "c26-fallback-branch",
        releases: &["1.2.0"],
        modes: &["stream", "stream-full", "latest-full"],
        problem: "stock reader: java.lang.ClassCastException",
    },
    // C73 as C67: the streams and `latest-full` fail the release's validation on both readers.
    ReleaseLimit {
        corpus: "c73-incremental-between-tags",
        releases: EVERY_RELEASE,
        modes: &["stream"],
        problem: "stock reader: java.lang.IllegalArgumentException: [incremental-between] must be null when you set [scan.snapshot-id,scan.tag-name]",
    },
    ReleaseLimit {
        corpus: "c73-incremental-between-tags",
        releases: EVERY_RELEASE,
        modes: &["stream-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: [incremental-between] must be null when you set [scan.snapshot-id]",
    },
    ReleaseLimit {
        corpus: "c73-incremental-between-tags",
        releases: EVERY_RELEASE,
        modes: &["latest-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: incremental-between must be null when you use latest-full for scan.mode",
    },
    // C74: 1.0.x knows no `incremental-to-auto-tag`, and its load's validation fails on the table's own
    // `scan.mode=incremental` without an increment, on both readers, in every mode; from 1.1.1 the streams
    // and `latest-full` fail the release's validation on both readers.
    ReleaseLimit {
        corpus: "c74-incremental-to-auto-tag",
        releases: &["1.0.0", "1.0.1"],
        modes: EVERY_MODE,
        problem: "stock reader: java.lang.IllegalArgumentException: must set only one key in [incremental-between,incremental-between-timestamp] when you use incremental for scan.mode",
    },
    ReleaseLimit {
        corpus: "c74-incremental-to-auto-tag",
        releases: AUTO_TAG_RELEASES,
        modes: &["stream"],
        problem: "stock reader: java.lang.IllegalArgumentException: [incremental-to-auto-tag] must be null when you set [scan.snapshot-id,scan.tag-name]",
    },
    ReleaseLimit {
        corpus: "c74-incremental-to-auto-tag",
        releases: AUTO_TAG_RELEASES,
        modes: &["stream-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: [incremental-to-auto-tag] must be null when you set [scan.snapshot-id]",
    },
    ReleaseLimit {
        corpus: "c74-incremental-to-auto-tag",
        releases: AUTO_TAG_RELEASES,
        modes: &["latest-full"],
        problem: "stock reader: java.lang.IllegalArgumentException: incremental-to-auto-tag must be null when you use latest-full for scan.mode",
    },
];
