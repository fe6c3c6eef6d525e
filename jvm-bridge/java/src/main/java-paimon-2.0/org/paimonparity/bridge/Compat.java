package org.paimonparity.bridge;

import org.apache.paimon.arrow.ArrowUtils;
import org.apache.paimon.data.BinaryVector;
import org.apache.paimon.data.variant.GenericVariant;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.VectorType;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.IncrementalSplit;
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

import org.apache.paimon.table.source.SplitSerializer;

import java.util.Collections;

/**
 * The Paimon 2.0 API calls whose signatures differ between released lines; everything else of the
 * bridge is line-independent. Its twin for 1.0 lives in {@code src/main/java-paimon-1.0}.
 */
final class Compat {

    private Compat() {}

    /**
     * {@code new SnapshotManager(FileIO, Path, branch, SnapshotLoader, Cache).latestSnapshotId()}
     * (the only constructor since 1.1), or -1 when there is none.
     */
    static long latestSnapshotId(String tableDir) {
        Long id =
                new SnapshotManager(LocalFileIO.create(), new Path(tableDir), null, null, null)
                        .latestSnapshotId();
        return id == null ? -1L : id;
    }

    /** {@code ArrowUtils.createVectorSchemaRoot(RowType, BufferAllocator)} (case-sensitive). */
    static VectorSchemaRoot createVectorSchemaRoot(RowType type, BufferAllocator allocator) {
        return ArrowUtils.createVectorSchemaRoot(type, allocator);
    }

    /**
     * A planned split as the bridge describes it. 2.0 plans {@code DataSplit}s, and for the changes
     * plan of a primary-key overwrite ({@code SnapshotReaderImpl.readChanges}) {@code
     * IncrementalSplit}s: their before files become the view's before files, their after files its
     * data files, and the bucket path is the table's {@code FileStorePathFactory.bucketPath}.
     */
    static SplitView describe(Split split, FileStoreTable table) {
        if (split instanceof DataSplit) {
            DataSplit d = (DataSplit) split;
            return new SplitView(
                    "DataSplit",
                    d.snapshotId(),
                    d.partition(),
                    d.bucket(),
                    d.bucketPath(),
                    d.dataFiles(),
                    Collections.emptyList(),
                    d.deletionFiles().orElse(null),
                    null,
                    d.isStreaming(),
                    d.rawConvertible());
        }
        if (split instanceof IncrementalSplit) {
            IncrementalSplit s = (IncrementalSplit) split;
            return new SplitView(
                    "IncrementalSplit",
                    s.snapshotId(),
                    s.partition(),
                    s.bucket(),
                    table.store().pathFactory().bucketPath(s.partition(), s.bucket()).toString(),
                    s.afterFiles(),
                    s.beforeFiles(),
                    s.afterDeletionFiles(),
                    s.beforeDeletionFiles(),
                    s.isStreaming(),
                    false);
        }
        throw new IllegalStateException("unexpected split class " + split.getClass().getName());
    }

    /**
     * A batch write (an overwrite): {@code withExecutionMode} is gone in 2.0, where a write has no
     * execution mode, so the write is returned as it is.
     */
    static TableWriteImpl<?> batchExecution(TableWriteImpl<?> write) {
        return write;
    }

    /**
     * A JSON value of a type new in 2.0, for {@code CorpusWriter.toInternal}: VARIANT from any JSON
     * value ({@code GenericVariant.fromJson} of its text), VECTOR from a JSON array of exactly {@code
     * length} elements ({@code BinaryVector.fromInternalArray}); {@code null} for other types.
     */
    static Object toInternalOfLineType(DataField field, JsonNode v) {
        DataType type = field.type();
        switch (type.getTypeRoot()) {
            case VARIANT:
                return GenericVariant.fromJson(v.toString());
            case VECTOR:
                {
                    VectorType vector = (VectorType) type;
                    if (!v.isArray() || v.size() != vector.getLength()) {
                        throw new IllegalArgumentException(
                                "column '" + field.name() + "' (" + type + "): " + v
                                        + " is not a JSON array of " + vector.getLength()
                                        + " elements");
                    }
                    return BinaryVector.fromInternalArray(
                            CorpusWriter.toArray(field, vector.getElementType(), v),
                            vector.getElementType());
                }
            default:
                return null;
        }
    }

    /**
     * The split in the form other readers decode (the external-reader protocol's {@code java_split}):
     * 2.0's {@code SplitSerializer.serialize(split)} frame ({@code SPLIT_V1}, then the split type and
     * its body; a {@code DataSplit} body is version 8).
     */
    static Map<String, Object> wireSplit(Split split) throws IOException {
        Map<String, Object> wire = new LinkedHashMap<>();
        wire.put("format", "split-v1");
        wire.put("data_split_version", DATA_SPLIT_VERSION);
        wire.put("base64", Base64.getEncoder().encodeToString(SplitSerializer.serialize(split)));
        return wire;
    }

    /** {@code DataSplit.VERSION} of 2.0.0 (private there). */
    private static final int DATA_SPLIT_VERSION = 8;
}
