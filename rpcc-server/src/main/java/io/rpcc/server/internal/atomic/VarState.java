package io.rpcc.server.internal.atomic;

import org.jspecify.annotations.Nullable;

/** The engine's side of a {@code TxVar}: its committed value and its lock. */
public final class VarState<T> {
    private final String name;
    private volatile T committed;
    private final TxLock lock;

    /** A variable named {@code name} whose committed value is {@code initial}. */
    public VarState(String name, T initial) {
        this.name = name;
        this.committed = initial;
        this.lock = new TxLock("TxVar " + name, null);
    }

    /** In an atomic hop: its value under a read lock; outside: the committed value. */
    public T get() {
        HopAttempt a = TxContext.current();
        if (a == null) {
            return committed;
        }
        a.lock(() -> lock, TxLock.S);
        return a.read(this);
    }

    /**
     * In an atomic hop: its value under the write lock (taken at once, not upgraded from a read
     * lock); outside: refused.
     */
    public T getForUpdate() {
        HopAttempt a = TxContext.required("TxVar " + name + ".getForUpdate");
        a.lock(() -> lock, TxLock.X);
        return a.read(this);
    }

    /** In an atomic hop: writes {@code value} under the write lock; outside: refused. */
    public void set(T value) {
        HopAttempt a = TxContext.required("TxVar " + name + ".set");
        a.lock(() -> lock, TxLock.X);
        a.write(this, value);
    }

    /** The committed value. */
    public T committed() {
        return committed;
    }

    /** The variable's name. */
    public String name() {
        return name;
    }

    @SuppressWarnings("unchecked")
    void apply(@Nullable Object value) {
        if (value != null) {
            committed = (T) value;
        }
    }

    /** Whether nobody holds or waits for its lock (for tests). */
    public boolean isIdle() {
        return lock.isIdle();
    }

    /** Its lock's holders and waiters, for diagnostics. */
    public String describeLock() {
        return lock.describe();
    }

    @Override
    public String toString() {
        return "TxVar " + name;
    }
}
