package org.paimonparity.bridge;

import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.RowType;

import java.util.List;
import java.util.Map;

/**
 * Row tracking and data evolution appeared in Paimon 1.3.0: releases before it can write neither
 * a file of some columns nor a file with a first row id. Its twin: {@code
 * src/main/java-commit-1.3}.
 */
final class RowTrackingWrites {

    private RowTrackingWrites() {}

    static TableWriteImpl<?> withWriteType(TableWriteImpl<?> write, RowType writeType) {
        throw unsupported();
    }

    static void assignFirstRowId(List<CommitMessage> messages, long firstRowId) {
        throw unsupported();
    }

    static void deleteRows(
            FileStoreTable table,
            String commitUser,
            long identifier,
            Map<String, List<Long>> positions) {
        throw unsupported();
    }

    private static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException(
                "writing some columns of rows by row id (data evolution) needs Paimon 1.3.0 or later");
    }
}
