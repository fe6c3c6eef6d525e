package org.paimonparity.bridge;

import org.apache.paimon.arrow.ArrowUtils;
import org.apache.paimon.arrow.writer.ArrowFieldWriter;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The release's own paimon-arrow as the {@link RowExport}: {@code
 * ArrowUtils.createVectorSchemaRoot(RowType, BufferAllocator)} (case-sensitive; the same 2-argument
 * call from 1.0 to 2.0) and {@code ArrowUtils.createArrowFieldWriters}, each row written field by
 * field with {@code ArrowFieldWriter.write(int, DataGetters, int)}.
 *
 * <p>This source set ({@code src/main/java-paimon-arrow}) is compiled only into the builds whose
 * release's paimon-arrow is on the class path (scripts/build-java: 1.0.0 and 2.0.0).
 */
public final class PaimonArrowExport implements RowExport {

    @Override
    public String name() {
        return "paimon-arrow";
    }

    @Override
    public VectorSchemaRoot createRoot(RowType type, BufferAllocator allocator) {
        return ArrowUtils.createVectorSchemaRoot(type, allocator);
    }

    @Override
    public Rows writer(VectorSchemaRoot root, RowType type) {
        ArrowFieldWriter[] writers = ArrowUtils.createArrowFieldWriters(root, type);
        return (rowIndex, row) -> write(writers, rowIndex, row);
    }

    private static void write(ArrowFieldWriter[] writers, int rowIndex, InternalRow row) {
        for (int i = 0; i < writers.length; i++) {
            writers[i].write(rowIndex, row, i);
        }
    }
}
