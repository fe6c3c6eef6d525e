package org.paimonparity.bridge;

import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;

import java.util.Collections;
import java.util.Optional;

/**
 * The halves of a commit message in the commit API of 1.3 on (1.3.x, 1.4.x, 2.0.x): {@code
 * FileStoreCommitImpl} puts a message's {@code CompactIncrement} (its files, changelog and index
 * files) into the COMPACT snapshot and its {@code DataIncrement} into the APPEND one. Its twin:
 * {@code src/main/java-commit-1.0}.
 */
final class CommitHalves {

    private CommitHalves() {}

    /** The message with its COMPACT half alone, or empty when it has none. */
    static Optional<CommitMessage> compactHalf(CommitMessageImpl m) {
        CompactIncrement c = m.compactIncrement();
        if (c.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(message(m, c));
    }

    private static CommitMessage message(CommitMessageImpl m, CompactIncrement c) {
        DataIncrement none =
                new DataIncrement(
                        Collections.emptyList(), Collections.emptyList(), Collections.emptyList());
        return new CommitMessageImpl(m.partition(), m.bucket(), m.totalBuckets(), none, c);
    }
}
