package org.paimonparity.bridge;

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.deletionvectors.BitmapDeletionVector;
import org.apache.paimon.deletionvectors.append.BaseAppendDeleteFileMaintainer;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Writes of row-tracking and data-evolution tables in the API of 1.3 on (1.3.x, 1.4.x, 2.0.x):
 * {@code TableWriteImpl.withWriteType} (a file of some columns only, {@code _WRITE_COLS}) and
 * {@code DataFileMeta.assignFirstRowId} (the rows it covers, as a data-evolution update sets them
 * before its commit). Its twin: {@code src/main/java-commit-1.0}, which refuses.
 */
final class RowTrackingWrites {

    private RowTrackingWrites() {}

    /** {@code write.withWriteType(writeType)}. */
    static TableWriteImpl<?> withWriteType(TableWriteImpl<?> write, RowType writeType) {
        return write.withWriteType(writeType);
    }

    /**
     * Every new data file of {@code messages} gets {@code firstRowId} ({@code
     * DataFileMeta.assignFirstRowId}), in place; the commit then keeps it instead of assigning the
     * table's next row id.
     */
    static void assignFirstRowId(List<CommitMessage> messages, long firstRowId) {
        for (CommitMessage m : messages) {
            List<DataFileMeta> files = ((CommitMessageImpl) m).newFilesIncrement().newFiles();
            List<DataFileMeta> assigned = new ArrayList<>(files.size());
            for (DataFileMeta f : files) {
                assigned.add(f.assignFirstRowId(firstRowId));
            }
            files.clear();
            files.addAll(assigned);
        }
    }

    /**
     * One commit of deletion vectors of an unpartitioned, bucket-unaware append table, as a delete
     * of a data-evolution table writes them: {@code BaseAppendDeleteFileMaintainer.forUnawareAppend}
     * on the latest snapshot, {@code notifyNewDeletionVector(file, positions)} for each file of
     * {@code positions}, {@code persist()}, and a commit of the index files it added and removed
     * ({@code DataIncrement} index files), as user {@code commitUser} with {@code identifier}.
     */
    static void deleteRows(
            FileStoreTable table,
            String commitUser,
            long identifier,
            Map<String, List<Long>> positions)
            throws Exception {
        Snapshot snapshot = table.snapshotManager().latestSnapshot();
        BaseAppendDeleteFileMaintainer maintainer =
                BaseAppendDeleteFileMaintainer.forUnawareAppend(
                        table.store().newIndexFileHandler(), snapshot, BinaryRow.EMPTY_ROW);
        for (Map.Entry<String, List<Long>> e : positions.entrySet()) {
            BitmapDeletionVector dv = new BitmapDeletionVector();
            for (long p : e.getValue()) {
                dv.delete(p);
            }
            maintainer.notifyNewDeletionVector(e.getKey(), dv);
        }
        List<IndexFileMeta> added = new ArrayList<>();
        List<IndexFileMeta> removed = new ArrayList<>();
        for (IndexManifestEntry entry : maintainer.persist()) {
            (entry.kind() == FileKind.ADD ? added : removed).add(entry.indexFile());
        }
        CommitMessage message =
                new CommitMessageImpl(
                        BinaryRow.EMPTY_ROW,
                        0,
                        null,
                        new DataIncrement(
                                Collections.emptyList(),
                                Collections.emptyList(),
                                Collections.emptyList(),
                                added,
                                removed),
                        CompactIncrement.emptyIncrement());
        try (TableCommitImpl commit = table.newCommit(commitUser)) {
            commit.commit(identifier, Collections.singletonList(message));
        }
    }
}
