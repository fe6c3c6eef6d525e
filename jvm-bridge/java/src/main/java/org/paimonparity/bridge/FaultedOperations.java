package org.paimonparity.bridge;

import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the two faulty file systems share ({@link FaultyFileIO} on local disk, {@link
 * FaultyStoreFileIO} on an object store): each primitive call on a path under a table whose {@link
 * CrashPoints} window is open is one numbered operation, and the window's fault fires at its
 * operation (before it takes effect, or after); a crash stops this instance and its open output
 * streams for good.
 */
final class FaultedOperations {

    /** Depth of primitive calls on this thread: calls made inside another one are not operations. */
    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

    /** Set by a crash: this instance (its writer and committer) is gone. */
    private volatile boolean crashed;

    /**
     * The output streams opened in a window and not closed yet. A crash releases their file
     * descriptors (a gone process holds none), so that a long sweep in one JVM does not leak them;
     * what they wrote stays as the file system keeps it.
     */
    private final Set<Out> open = ConcurrentHashMap.newKeySet();

    /** One primitive call. */
    interface IoCall<T> {
        T call() throws IOException;
    }

    /** Whether this thread is inside a primitive call (whose own calls are not operations). */
    static boolean nested() {
        return DEPTH.get()[0] > 0;
    }

    /** Runs {@code call} as a nested call: not an operation, no fault. */
    static <T> T quietly(IoCall<T> call) throws IOException {
        int[] depth = DEPTH.get();
        depth[0]++;
        try {
            return call.call();
        } finally {
            depth[0]--;
        }
    }

    /** Runs {@code call} as operation {@code op} on {@code path}, with the faults of its window. */
    <T> T op(String op, Path path, IoCall<T> call) throws IOException {
        if (nested()) {
            return call.call();
        }
        if (crashed) {
            throw new IOException(Faults.INJECTED + ": crashed before " + op + " " + path);
        }
        CrashPoints.Window w = CrashPoints.of(path);
        int n = w == null ? 0 : w.record(op, path);
        if (w != null && w.before(n, op)) {
            if (CrashPoints.CRASH.equals(w.mode)) {
                crash();
            }
            throw CrashPoints.injected(w.mode, n, op, path);
        }
        T out = quietly(call);
        if (w != null && w.after(n, op)) {
            throw CrashPoints.injected(w.mode, n, op, path);
        }
        return out;
    }

    /** Marks this instance crashed and releases its open output streams. */
    private void crash() {
        crashed = true;
        for (Out o : open) {
            o.release();
        }
    }

    /**
     * {@code out}, opened on {@code path}, as a stream of this instance: when the path is in a
     * window (or this instance crashed), its {@code close} is operation {@code closeOp} and a crash
     * stops its writes; otherwise {@code out} itself. {@code uploadsAtClose}: the file appears only
     * when the stream closes (an object store's PUT), so a stream stopped by a crash or by a fault at
     * its close is abandoned, never closed.
     */
    PositionOutputStream track(
            Path path, PositionOutputStream out, String closeOp, boolean uploadsAtClose) {
        if (CrashPoints.of(path) == null && !crashed) {
            return out;
        }
        Out o = new Out(this, path, out, closeOp, uploadsAtClose);
        open.add(o);
        if (crashed) {
            o.release();
        }
        return o;
    }

    /** Throws when this instance crashed: a write into an open stream of a gone process. */
    private void checkAlive(Path path) throws IOException {
        if (crashed) {
            throw new IOException(Faults.INJECTED + ": crashed, writing " + path);
        }
    }

    /**
     * An output stream opened in a window: its {@code close} is an operation, and a crash stops it.
     * It is released however its {@code close} ends (a fault at the close, or a crash), never left
     * open.
     */
    private static final class Out extends PositionOutputStream {
        private final FaultedOperations ops;
        private final Path path;
        private final PositionOutputStream out;
        private final String closeOp;
        private final boolean uploadsAtClose;
        private boolean released;

        Out(
                FaultedOperations ops,
                Path path,
                PositionOutputStream out,
                String closeOp,
                boolean uploadsAtClose) {
            this.ops = ops;
            this.path = path;
            this.out = out;
            this.closeOp = closeOp;
            this.uploadsAtClose = uploadsAtClose;
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos();
        }

        @Override
        public void write(int b) throws IOException {
            ops.checkAlive(path);
            out.write(b);
        }

        @Override
        public void write(byte[] b) throws IOException {
            ops.checkAlive(path);
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ops.checkAlive(path);
            out.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            ops.checkAlive(path);
            out.flush();
        }

        /**
         * Lets go of the underlying stream once, quietly. On local disk it is closed (its bytes are
         * on disk already, its descriptor is freed); an object store's stream would upload at its
         * close, which a gone process never does, so it is abandoned (its buffers go with it).
         */
        synchronized void release() {
            if (!released) {
                released = true;
                ops.open.remove(this);
                if (uploadsAtClose) {
                    return;
                }
                try {
                    out.close();
                } catch (IOException ignored) {
                    // Nothing to keep: the stream is gone either way.
                }
            }
        }

        @Override
        public void close() throws IOException {
            try {
                ops.op(
                        closeOp,
                        path,
                        () -> {
                            synchronized (this) {
                                if (!released) {
                                    released = true;
                                    ops.open.remove(this);
                                    out.close();
                                }
                            }
                            return null;
                        });
            } finally {
                release();
            }
        }
    }
}
