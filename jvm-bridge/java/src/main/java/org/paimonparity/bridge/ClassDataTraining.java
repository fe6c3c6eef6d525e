package org.paimonparity.bridge;

import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.utils.InstantiationUtil;

import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The training run of the class-data-sharing archive that {@code scripts/build-java} builds per release
 * ({@code -XX:DumpLoadedClassList}, then {@code -Xshare:dump}): the classes a replay loads, loaded the way a
 * replay loads them. For each table directory given: the batch plan ({@link StockReader#planBatch}), a
 * stream scan's first plan ({@link StockReader#openStreamScan}), and every split of the batch plan read
 * through {@link StockReader#openRead} and exported through the Arrow C Data Interface
 * ({@link StockReader#nextBatch}) into arrays allocated here and released at once. Only reads: the tables
 * are opened read-only, as every read of the bridge opens them.
 */
public final class ClassDataTraining {
    private ClassDataTraining() {}

    public static void main(String[] args) throws Exception {
        int read = 0;
        try (BufferAllocator allocator = new RootAllocator()) {
            for (String dir : args) {
                try {
                    read += train(dir, allocator);
                } catch (Exception e) {
                    // A table this release cannot read still trained what it loaded before failing.
                    System.err.println("training on " + dir + ": " + e);
                }
            }
        }
        System.err.println("class-data training: " + args.length + " tables, " + read + " splits read");
    }

    private static int train(String dir, BufferAllocator allocator) throws Exception {
        StockReader.planBatch(dir, "{}");
        long scan = StockReader.openStreamScan(dir, "{\"scan.mode\":\"from-snapshot\",\"scan.snapshot-id\":\"1\"}");
        try {
            StockReader.nextStreamPlan(scan);
        } finally {
            StockReader.closeStreamScan(scan);
        }
        FileStoreTable table = FileStoreTableFactory.create(LocalFileIO.create(), new Path(dir));
        int read = 0;
        for (Split split : table.newReadBuilder().newScan().plan().splits()) {
            long handle = StockReader.openRead(dir, InstantiationUtil.serializeObject(split));
            try {
                while (true) {
                    try (ArrowArray array = ArrowArray.allocateNew(allocator);
                            ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
                        int rows = StockReader.nextBatch(handle, array.memoryAddress(), schema.memoryAddress());
                        if (rows < 0) {
                            break;
                        }
                        array.release();
                        schema.release();
                    }
                }
            } finally {
                StockReader.closeRead(handle);
            }
            read++;
        }
        return read;
    }
}
