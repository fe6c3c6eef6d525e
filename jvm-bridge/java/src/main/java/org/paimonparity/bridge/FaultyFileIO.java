package org.paimonparity.bridge;

import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.local.LocalFileIO;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The released {@code LocalFileIO}, plus two kinds of faults. Without either it behaves exactly like
 * {@code LocalFileIO}.
 *
 * <ul>
 *   <li>The manifest-read fault of {@link Faults}: once armed for a table, the first successful
 *       rename onto its {@code snapshot/snapshot-N} (the atomic publication of a snapshot) makes the
 *       next read of a file under its {@code manifest/} throw.
 *   <li>The crash points of {@link CrashPoints}: while a table's window is open, every primitive
 *       operation on a path under it is numbered and recorded, and one of them can crash this
 *       instance (it and every later operation throw; its output streams fail without closing),
 *       fail before it takes effect, or fail after.
 * </ul>
 */
public class FaultyFileIO extends LocalFileIO {

    private static final long serialVersionUID = 1L;

    /** Depth of primitive calls on this thread: calls made inside another one are not operations. */
    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

    /** Set by a crash: this instance (its writer and committer) is gone. */
    private transient volatile boolean crashed;

    /**
     * The output streams opened in a window and not closed yet. A crash releases their file
     * descriptors (a gone process holds none), so that a long sweep in one JVM does not leak them;
     * their files keep what was written, as a crash leaves them ({@code LocalFileIO}'s streams do
     * not buffer).
     */
    private final transient Set<Out> open = ConcurrentHashMap.newKeySet();

    /** One primitive call. */
    interface IoCall<T> {
        T call() throws IOException;
    }

    /** Runs {@code call} as operation {@code op} on {@code path}, with the faults of its window. */
    <T> T op(String op, Path path, IoCall<T> call) throws IOException {
        int[] depth = DEPTH.get();
        if (depth[0] > 0) {
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
        T out;
        depth[0]++;
        try {
            out = call.call();
        } finally {
            depth[0]--;
        }
        if (w != null && w.after(n, op)) {
            throw CrashPoints.injected(w.mode, n, op, path);
        }
        return out;
    }

    /** Marks this instance crashed and releases the descriptors of its open output streams. */
    private void crash() {
        crashed = true;
        for (Out o : open) {
            o.release();
        }
    }

    /** Throws when this instance crashed: a write into an open stream of a gone process. */
    void checkAlive(Path path) throws IOException {
        if (crashed) {
            throw new IOException(Faults.INJECTED + ": crashed, writing " + path);
        }
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        boolean ok = op("rename", dst, () -> super.rename(src, dst));
        Path dir = dst.getParent();
        if (ok
                && dst.getName().startsWith("snapshot-")
                && dir != null
                && "snapshot".equals(dir.getName())) {
            Faults.Switches s = Faults.of(dir.getParent());
            if (s != null && s.manifestArmed.compareAndSet(true, false)) {
                s.manifestFire.set(true);
            }
        }
        return ok;
    }

    @Override
    public SeekableInputStream newInputStream(Path path) throws IOException {
        Path dir = path.getParent();
        if (dir != null && "manifest".equals(dir.getName())) {
            Faults.Switches s = Faults.of(dir.getParent());
            if (s != null && s.manifestFire.compareAndSet(true, false)) {
                throw new IOException(Faults.INJECTED + ": manifest read " + path);
            }
        }
        return op("newInputStream", path, () -> super.newInputStream(path));
    }

    @Override
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        PositionOutputStream out =
                op("newOutputStream", path, () -> super.newOutputStream(path, overwrite));
        if (CrashPoints.of(path) == null && !crashed) {
            return out;
        }
        Out o = new Out(this, path, out);
        open.add(o);
        if (crashed) {
            o.release();
        }
        return o;
    }

    @Override
    public FileStatus getFileStatus(Path path) throws IOException {
        return op("getFileStatus", path, () -> super.getFileStatus(path));
    }

    @Override
    public FileStatus[] listStatus(Path path) throws IOException {
        return op("listStatus", path, () -> super.listStatus(path));
    }

    @Override
    public boolean exists(Path path) throws IOException {
        return op("exists", path, () -> super.exists(path));
    }

    @Override
    public boolean delete(Path path, boolean recursive) throws IOException {
        return op("delete", path, () -> super.delete(path, recursive));
    }

    @Override
    public boolean mkdirs(Path path) throws IOException {
        return op("mkdirs", path, () -> super.mkdirs(path));
    }

    /**
     * An output stream opened in a window: its {@code close} is an operation, and a crash stops it.
     * Its descriptor is released however its {@code close} ends (a fault at the close, or a crash),
     * never left open.
     */
    private static final class Out extends PositionOutputStream {
        private final FaultyFileIO io;
        private final Path path;
        private final PositionOutputStream out;
        private boolean released;

        Out(FaultyFileIO io, Path path, PositionOutputStream out) {
            this.io = io;
            this.path = path;
            this.out = out;
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos();
        }

        @Override
        public void write(int b) throws IOException {
            io.checkAlive(path);
            out.write(b);
        }

        @Override
        public void write(byte[] b) throws IOException {
            io.checkAlive(path);
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            io.checkAlive(path);
            out.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            io.checkAlive(path);
            out.flush();
        }

        /** Closes the underlying stream once, quietly: its descriptor is freed, its bytes stay. */
        synchronized void release() {
            if (!released) {
                released = true;
                io.open.remove(this);
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
                io.op(
                        "close",
                        path,
                        () -> {
                            synchronized (this) {
                                if (!released) {
                                    released = true;
                                    io.open.remove(this);
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
