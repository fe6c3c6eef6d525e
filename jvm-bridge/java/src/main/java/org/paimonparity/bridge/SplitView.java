package org.paimonparity.bridge;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.DeletionFile;
import org.apache.paimon.table.source.Split;

import java.util.List;

/**
 * What the bridge reports of one planned split, whatever its class in the release under test
 * ({@code DataSplit} up to 1.3; {@code DataSplit} or {@code IncrementalSplit} from 1.4), built by the
 * {@link #of}. Deletion-file lists are {@code null} when the split has none.
 */
final class SplitView {
    final String kind;
    final long snapshotId;
    final BinaryRow partition;
    final int bucket;
    final String bucketPath;
    final List<DataFileMeta> dataFiles;
    final List<DataFileMeta> beforeFiles;
    final List<DeletionFile> deletionFiles;
    final List<DeletionFile> beforeDeletionFiles;
    final boolean isStreaming;
    final boolean rawConvertible;

    SplitView(
            String kind,
            long snapshotId,
            BinaryRow partition,
            int bucket,
            String bucketPath,
            List<DataFileMeta> dataFiles,
            List<DataFileMeta> beforeFiles,
            List<DeletionFile> deletionFiles,
            List<DeletionFile> beforeDeletionFiles,
            boolean isStreaming,
            boolean rawConvertible) {
        this.kind = kind;
        this.snapshotId = snapshotId;
        this.partition = partition;
        this.bucket = bucket;
        this.bucketPath = bucketPath;
        this.dataFiles = dataFiles;
        this.beforeFiles = beforeFiles;
        this.deletionFiles = deletionFiles;
        this.beforeDeletionFiles = beforeDeletionFiles;
        this.isStreaming = isStreaming;
        this.rawConvertible = rawConvertible;
    }

    /**
     * A planned split as the bridge describes it: a {@code DataSplit} by its getters (the same in
     * every release) and the before files the line gives it ({@code Compat.beforeFiles}: {@code
     * beforeFiles()} up to 1.3, none from 1.4, where an overwrite's changes plan is made of {@code
     * IncrementalSplit}s); any other split by the line's {@code Compat.describeOther}.
     */
    static SplitView of(Split split, FileStoreTable table) {
        if (split instanceof DataSplit) {
            DataSplit d = (DataSplit) split;
            return new SplitView(
                    "DataSplit",
                    d.snapshotId(),
                    d.partition(),
                    d.bucket(),
                    d.bucketPath(),
                    d.dataFiles(),
                    Compat.beforeFiles(d),
                    d.deletionFiles().orElse(null),
                    Compat.beforeDeletionFiles(d),
                    d.isStreaming(),
                    d.rawConvertible());
        }
        SplitView other = Compat.describeOther(split, table);
        if (other == null) {
            throw new IllegalStateException("unexpected split class " + split.getClass().getName());
        }
        return other;
    }
}
