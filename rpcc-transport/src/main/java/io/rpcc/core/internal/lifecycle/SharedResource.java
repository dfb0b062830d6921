package io.rpcc.core.internal.lifecycle;

import io.rpcc.core.spi.EngineSpi;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A resource (threads, a timer, event loops) shared by the nodes of a JVM and owned by them
 * together: the first {@link #acquire()} creates it, the {@link #release()} that balances the last
 * acquire disposes of it, and the next acquire creates a new one. So a JVM whose nodes are all closed
 * holds none of rpcc's threads, and a JVM with many nodes holds one set.
 *
 * @param <T> the resource
 */
@EngineSpi
public final class SharedResource<T> {
    private final String what;
    private final Supplier<T> create;
    private final Consumer<T> dispose;
    private T value; // guarded by this
    private int users; // guarded by this

    /** A resource described as {@code what}, made by {@code create} and released by {@code dispose}. */
    public SharedResource(String what, Supplier<T> create, Consumer<T> dispose) {
        this.what = what;
        this.create = create;
        this.dispose = dispose;
    }

    /** The resource, created if nobody holds it; each call must be balanced by one {@link #release()}. */
    public synchronized T acquire() {
        if (users == 0) {
            value = create.get();
        }
        users++;
        return value;
    }

    /** Gives up one hold; the last one disposes of the resource. */
    public void release() {
        T disposed;
        synchronized (this) {
            if (users == 0) {
                throw new IllegalStateException(what + " released more often than acquired");
            }
            if (--users > 0) {
                return;
            }
            disposed = value;
            value = null;
        }
        dispose.accept(disposed);
    }

    /**
     * The resource while someone holds it.
     *
     * @throws IllegalStateException if nobody does (no node is started)
     */
    public synchronized T current() {
        if (users == 0) {
            throw new IllegalStateException(what + " is not running: it runs while a node that uses it is started");
        }
        return value;
    }

    /** The resource while someone holds it, else {@code null}. */
    public synchronized T currentOrNull() {
        return value;
    }
}
