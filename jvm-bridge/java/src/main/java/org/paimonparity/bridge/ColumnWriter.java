package org.paimonparity.bridge;

import org.apache.paimon.disk.IOManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/**
 * One commit of some columns of a row-tracking table, as a data-evolution update writes it: {@code
 * table.newWrite(commitUser).withWriteType(columns)}, the rows written, {@code
 * prepareCommit(false, identifier)}, every new file given {@code firstRowId} (unless it is
 * negative: the commit then assigns the table's next row id), and {@code
 * table.newCommit(commitUser).commit(identifier, messages)}. Version-specific calls go through
 * {@link RowTrackingWrites}.
 */
public final class ColumnWriter {

    private ColumnWriter() {}

    /**
     * Writes {@code rowsJson} ({@code [{"kind":"+I","values":[..]}, ..]}, values in the order of
     * {@code columnsJson}, a JSON array of column names) as one commit of user {@code commitUser}
     * with {@code identifier}. Returns what {@link CorpusWriter#prepare} returns for the messages.
     */
    public static String writeColumns(
            String tableDir,
            String commitUser,
            String ioTmpDir,
            long identifier,
            String columnsJson,
            long firstRowId,
            String rowsJson)
            throws Exception {
        FileStoreTable table =
                FileStoreTableFactory.create(
                        TableLocations.fileIO(tableDir), TableLocations.path(tableDir));
        JsonNode columns = JsonSerdeUtil.fromJson(columnsJson, JsonNode.class);
        if (columns == null || !columns.isArray() || columns.size() == 0) {
            throw new IllegalArgumentException("columns must be a non-empty JSON array of names");
        }
        List<String> names = new ArrayList<>();
        for (JsonNode c : columns) {
            if (!table.rowType().containsField(c.asText())) {
                throw new IllegalArgumentException(
                        "column `" + c.asText() + "` is not in " + table.rowType());
            }
            names.add(c.asText());
        }
        RowType writeType = table.rowType().project(names);
        List<DataField> fields = writeType.getFields();
        JsonNode rows = JsonSerdeUtil.fromJson(rowsJson, JsonNode.class);
        if (rows == null || !rows.isArray()) {
            throw new IllegalArgumentException("rows JSON must be an array");
        }
        try (IOManager io = IOManager.create(ioTmpDir);
                TableWriteImpl<?> write =
                        RowTrackingWrites.withWriteType(table.newWrite(commitUser), writeType)
                                .withIOManager(io);
                TableCommitImpl commit = table.newCommit(commitUser)) {
            for (JsonNode r : rows) {
                write.write(JsonRows.rowOf(fields, r));
            }
            List<CommitMessage> messages = write.prepareCommit(false, identifier);
            if (firstRowId >= 0) {
                RowTrackingWrites.assignFirstRowId(messages, firstRowId);
            }
            String summary = CorpusWriter.summary(messages);
            commit.commit(identifier, messages);
            return summary;
        }
    }

    /**
     * One commit of deletion vectors (see {@code RowTrackingWrites.deleteRows}): {@code
     * positionsJson} maps data file names to the row positions (in that file) to delete, {@code
     * {"data-…-0.parquet": [1, 3]}}; the caller picks each row-id group's anchor file.
     */
    public static void deleteRows(
            String tableDir, String commitUser, long identifier, String positionsJson)
            throws Exception {
        FileStoreTable table =
                FileStoreTableFactory.create(
                        TableLocations.fileIO(tableDir), TableLocations.path(tableDir));
        JsonNode json = JsonSerdeUtil.fromJson(positionsJson, JsonNode.class);
        if (json == null || !json.isObject()) {
            throw new IllegalArgumentException("positions must be a JSON object of file -> [positions]");
        }
        java.util.Map<String, List<Long>> positions = new java.util.LinkedHashMap<>();
        java.util.Iterator<java.util.Map.Entry<String, JsonNode>> it = json.fields();
        while (it.hasNext()) {
            java.util.Map.Entry<String, JsonNode> e = it.next();
            List<Long> list = new ArrayList<>();
            for (JsonNode p : e.getValue()) {
                list.add(p.asLong());
            }
            positions.put(e.getKey(), list);
        }
        RowTrackingWrites.deleteRows(table, commitUser, identifier, positions);
    }
}
