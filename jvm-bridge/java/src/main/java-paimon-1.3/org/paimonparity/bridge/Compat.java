package org.paimonparity.bridge;

import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.DeletionFile;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

import java.util.List;

/**
 * The API calls of the Paimon 1.3 generation (1.3.x) whose signatures differ between generations;
 * everything else of the bridge is in the shared sources. Its twins: {@code
 * src/main/java-paimon-1.0} (1.0-1.2) and {@code src/main/java-paimon-1.4} (1.4.x-2.0.x).
 */
final class Compat {

    private Compat() {}

    /** A {@code DataSplit}'s before files: {@code beforeFiles()} (an overwrite's deleted files). */
    static List<DataFileMeta> beforeFiles(DataSplit split) {
        return split.beforeFiles();
    }

    /** A {@code DataSplit}'s before deletion files, or {@code null} when it has none. */
    static List<DeletionFile> beforeDeletionFiles(DataSplit split) {
        return split.beforeDeletionFiles().orElse(null);
    }

    /** A planned split that is not a {@code DataSplit}: none in this generation, so {@code null}. */
    static SplitView describeOther(Split split, FileStoreTable table) {
        return null;
    }

    /**
     * {@code table} unchanged: this generation has no {@code blob-view-field}, so a catalog context
     * changes nothing it reads (the 1.4 generation's twin attaches one).
     */
    static FileStoreTable withCatalogContext(
            FileStoreTable table, FileIO fileIO, Options options, CatalogContext context) {
        return table;
    }

    /**
     * A batch write (an overwrite): {@code withExecutionMode} is gone from 1.3, where a write has no
     * execution mode, so the write is returned as it is.
     */
    static TableWriteImpl<?> batchExecution(TableWriteImpl<?> write) {
        return write;
    }

    /**
     * A JSON value of a type the shared {@code JsonRows.toInternal} does not handle: none in 1.3
     * (VARIANT corpora are written from 1.4), so {@code null}.
     */
    static Object toInternalOfLineType(DataField field, JsonNode v) {
        return null;
    }

    /**
     * The Arrow field of a type {@link RowArrowExport} does not handle itself: none in 1.3 (VARIANT
     * is refused, as 1.3's paimon-arrow refuses it), so {@code null}.
     */
    static Field lineTypeField(
            RowArrowExport export, String name, int id, int baseId, DataType type, int depth) {
        return null;
    }

    /** The writer of such a type: none, so {@code null}. */
    static RowArrowExport.Writer lineTypeWriter(
            RowArrowExport export, DataType type, FieldVector vector, boolean nullable) {
        return null;
    }
}
