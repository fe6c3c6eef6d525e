package org.paimonparity.bridge;

import org.apache.paimon.arrow.ArrowUtils;
import org.apache.paimon.types.DataField;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.SnapshotManager;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.paimon.io.DataOutputViewStreamWrapper;

/**
 * The Paimon 1.0 API calls whose signatures differ between released lines; everything else of the
 * bridge is line-independent. Its twin for 2.0 lives in {@code src/main/java-paimon-2.0}.
 */
final class Compat {

    private Compat() {}

    /** {@code new SnapshotManager(FileIO, Path).latestSnapshotId()}, or -1 when there is none. */
    static long latestSnapshotId(String tableDir) {
        Long id = new SnapshotManager(LocalFileIO.create(), new Path(tableDir)).latestSnapshotId();
        return id == null ? -1L : id;
    }

    /** {@code ArrowUtils.createVectorSchemaRoot(RowType, BufferAllocator, caseSensitive = true)}. */
    static VectorSchemaRoot createVectorSchemaRoot(RowType type, BufferAllocator allocator) {
        return ArrowUtils.createVectorSchemaRoot(type, allocator, true);
    }

    /**
     * A planned split as the bridge describes it. In 1.0 every split is a {@code DataSplit}; an
     * overwrite changes plan carries its deleted files as {@code beforeFiles()}.
     */
    static SplitView describe(Split split, FileStoreTable table) {
        if (!(split instanceof DataSplit)) {
            throw new IllegalStateException("unexpected split class " + split.getClass().getName());
        }
        DataSplit d = (DataSplit) split;
        return new SplitView(
                "DataSplit",
                d.snapshotId(),
                d.partition(),
                d.bucket(),
                d.bucketPath(),
                d.dataFiles(),
                d.beforeFiles(),
                d.deletionFiles().orElse(null),
                d.beforeDeletionFiles().orElse(null),
                d.isStreaming(),
                d.rawConvertible());
    }

    /** {@code TableWriteImpl.withExecutionMode(false)}: a batch write (an overwrite). */
    static TableWriteImpl<?> batchExecution(TableWriteImpl<?> write) {
        return write.withExecutionMode(false);
    }

    /**
     * A JSON value of a type the 1.0 line does not have, for {@code CorpusWriter.toInternal}: none
     * (every 1.0 type is handled there), so {@code null}.
     */
    static Object toInternalOfLineType(DataField field, JsonNode v) {
        return null;
    }

    /**
     * The split in the form other readers decode (the external-reader protocol's {@code java_split}):
     * 1.0 has no split frame, so a {@code DataSplit} is its raw {@code DataSplit#serialize} body
     * (version 5); {@code null} for any other split.
     */
    static Map<String, Object> wireSplit(Split split) throws IOException {
        if (!(split instanceof DataSplit)) {
            return null;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ((DataSplit) split).serialize(new DataOutputViewStreamWrapper(bytes));
        Map<String, Object> wire = new LinkedHashMap<>();
        wire.put("format", "data-split");
        wire.put("data_split_version", DATA_SPLIT_VERSION);
        wire.put("base64", Base64.getEncoder().encodeToString(bytes.toByteArray()));
        return wire;
    }

    /** {@code DataSplit.VERSION} of 1.0.0 (private there). */
    private static final int DATA_SPLIT_VERSION = 5;
}
