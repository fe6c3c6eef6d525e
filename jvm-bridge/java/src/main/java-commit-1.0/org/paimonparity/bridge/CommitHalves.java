package org.paimonparity.bridge;

import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.io.IndexIncrement;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;

import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import static org.apache.paimon.deletionvectors.DeletionVectorsIndexFile.DELETION_VECTORS_INDEX;

/**
 * The halves of a commit message in the 1.0-1.2 commit API: {@code FileStoreCommitImpl} puts a
 * message's {@code CompactIncrement} and its deletion-vector index files ({@code IndexIncrement},
 * type {@code DELETION_VECTORS}) into the COMPACT snapshot, the {@code DataIncrement} and hash index
 * files into the APPEND one. {@code CommitMessageImpl}'s constructor takes the bucket count from
 * 1.1 on, so it is found by its parameters. Its twin: {@code src/main/java-commit-1.3} (1.3 on,
 * where the compaction's index files are in the {@code CompactIncrement}).
 */
final class CommitHalves {

    private CommitHalves() {}

    /** The message with its COMPACT half alone, or empty when it has none. */
    static Optional<CommitMessage> compactHalf(CommitMessageImpl m) {
        CompactIncrement c = m.compactIncrement();
        List<IndexFileMeta> added = dv(m.indexIncrement().newIndexFiles());
        List<IndexFileMeta> deleted = dv(m.indexIncrement().deletedIndexFiles());
        if (c.isEmpty() && added.isEmpty() && deleted.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(message(m, c, new IndexIncrement(added, deleted)));
    }

    private static List<IndexFileMeta> dv(List<IndexFileMeta> files) {
        List<IndexFileMeta> out = new ArrayList<>();
        for (IndexFileMeta f : files) {
            if (DELETION_VECTORS_INDEX.equals(f.indexType())) {
                out.add(f);
            }
        }
        return out;
    }

    /** A message of {@code m}'s bucket with no new data files, {@code c} and {@code index}. */
    private static CommitMessage message(
            CommitMessageImpl m, CompactIncrement c, IndexIncrement index) {
        DataIncrement none =
                new DataIncrement(
                        Collections.emptyList(), Collections.emptyList(), Collections.emptyList());
        try {
            for (Constructor<?> k : CommitMessageImpl.class.getConstructors()) {
                Class<?>[] p = k.getParameterTypes();
                if (p.length == 5 && p[4] == IndexIncrement.class) {
                    return (CommitMessage) k.newInstance(m.partition(), m.bucket(), none, c, index);
                }
                if (p.length == 6 && p[5] == IndexIncrement.class) {
                    return (CommitMessage)
                            k.newInstance(
                                    m.partition(), m.bucket(), totalBuckets(m), none, c, index);
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build a CommitMessageImpl", e);
        }
        throw new IllegalStateException("no CommitMessageImpl constructor of the 1.0-1.2 API");
    }

    private static Object totalBuckets(CommitMessageImpl m) throws ReflectiveOperationException {
        return CommitMessageImpl.class.getMethod("totalBuckets").invoke(m);
    }
}
