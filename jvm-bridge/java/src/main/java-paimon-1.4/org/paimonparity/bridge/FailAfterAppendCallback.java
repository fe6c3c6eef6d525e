package org.paimonparity.bridge;

import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.sink.CommitCallback;

/**
 * The commit-callback fault of {@link Faults}, for the {@code CommitCallback} signature of Paimon
 * 1.4 and 2.0 ({@code call(CommitCallback.Context)}). Named in the writer's {@code
 * commit.callbacks} option; does nothing unless armed.
 */
public final class FailAfterAppendCallback implements CommitCallback {

    private final String tableDir;

    /** Used by {@code CallbackUtils} without a parameter: never fires. */
    public FailAfterAppendCallback() {
        this(null);
    }

    /**
     * Used by {@code CallbackUtils} with {@code commit.callback.<class>.param}: the table directory
     * whose faults it fires.
     */
    public FailAfterAppendCallback(String tableDir) {
        this.tableDir = tableDir;
    }

    @Override
    public void call(Context context) {
        Faults.afterSnapshot(tableDir, context.snapshot.commitKind().name(), context.snapshot.id());
    }

    @Override
    public void retry(ManifestCommittable committable) {}

    @Override
    public void close() {}
}
