package org.paimonparity.bridge;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.source.DeletionFile;

import java.util.List;

/**
 * What the bridge reports of one planned split, whatever its class in the release under test
 * ({@code DataSplit} in 1.0; {@code DataSplit} or {@code IncrementalSplit} in 2.0), built by the
 * line's {@code Compat.describe}. Deletion-file lists are {@code null} when the split has none.
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
}
