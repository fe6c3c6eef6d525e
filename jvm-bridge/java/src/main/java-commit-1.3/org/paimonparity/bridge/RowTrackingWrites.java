package org.paimonparity.bridge;

import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.List;

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
}
