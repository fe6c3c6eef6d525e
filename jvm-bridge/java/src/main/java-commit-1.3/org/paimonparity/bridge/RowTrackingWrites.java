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
     * The new data files of {@code messages} get first row ids from {@code firstRowId} on ({@code
     * DataFileMeta.assignFirstRowId}), in place, as {@code RowTrackingCommitUtils} numbers a
     * commit's files: the files of each stream (plain files, the {@code .blob} files of each
     * column, the vector-store files, {@code .vector.} in the name) follow one another in row ids
     * from {@code firstRowId}, so the files a rolling writer cut from one update cover its rows
     * once. The commit then keeps them instead of assigning the table's next row ids.
     */
    static void assignFirstRowId(List<CommitMessage> messages, long firstRowId) {
        Map<String, Long> next = new java.util.HashMap<>();
        for (CommitMessage m : messages) {
            List<DataFileMeta> files = ((CommitMessageImpl) m).newFilesIncrement().newFiles();
            List<DataFileMeta> assigned = new ArrayList<>(files.size());
            for (DataFileMeta f : files) {
                String name = f.fileName();
                String stream =
                        name.endsWith(".blob")
                                ? "blob:" + f.writeCols().get(0)
                                : name.contains(".vector.") ? "vector" : "data";
                long start = next.getOrDefault(stream, firstRowId);
                assigned.add(f.assignFirstRowId(start));
                next.put(stream, start + f.rowCount());
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
