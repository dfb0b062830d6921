package io.rpcc.server.atomic;

import io.rpcc.server.internal.atomic.VarState;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * One value that atomic chains read and change as part of their transaction, typically a field of a
 * service class:
 *
 * <pre>{@code
 * static final TxVar<Long> STOCK = TxVar.of("stock", 100L);
 *
 * @ServiceMethod
 * long reserve(long n) {
 *     long left = STOCK.getForUpdate() - n;  // write lock until the transaction ends
 *     if (left < 0) throw new IllegalArgumentException("out of stock");
 *     STOCK.set(left);                       // visible to others once the chain commits
 *     return left;
 * }
 * }</pre>
 *
 * <p>In an atomic chain, {@link #get()} takes the variable's read lock and {@link #set(Object)} its
 * write lock, both held until the transaction ends; the transaction sees its own writes, others see
 * them once it commits. A hop that must wait for the lock is stopped and runs again from its start
 * when the lock is granted (see the {@linkplain io.rpcc.server.atomic package}). A transaction that
 * reads a value in order to change it should use {@link #update(UnaryOperator)} or
 * {@link #getForUpdate()}, which take the write lock at once. Outside an atomic chain, {@link #get()}
 * returns the last committed value and {@link #set(Object)} is refused.
 *
 * <p>Values are never null, and should be immutable (a transaction's write is its value, not a copy
 * of it). The variable lives in the JVM's memory: it is not persisted.
 *
 * @param <T> the value's type
 */
public final class TxVar<T> {
    private final VarState<T> state;

    private TxVar(VarState<T> state) {
        this.state = state;
    }

    /**
     * A new variable whose committed value is {@code initial}.
     *
     * @param name a name for errors and logs (not necessarily unique)
     */
    public static <T> TxVar<T> of(String name, T initial) {
        return new TxVar<>(new VarState<>(Objects.requireNonNull(name, "name"),
                Objects.requireNonNull(initial, "initial")));
    }

    /**
     * The value this transaction sees (its own write, or the committed value under a read lock) in an
     * atomic chain; outside one, the last committed value.
     */
    public T get() {
        return state.get();
    }

    /**
     * The value this transaction sees, under the variable's write lock, for a transaction that reads
     * the value in order to write it. {@code set(get() + 1)} takes the read lock first and upgrades it:
     * when several transactions read the same variable and then all want to write it, the oldest
     * wounds every other (each restarts); with {@code getForUpdate()} they queue for the write lock
     * instead, and only an older transaction that comes after a younger one took the lock wounds it.
     *
     * @throws IllegalStateException outside an atomic chain (there is nothing to lock for)
     */
    public T getForUpdate() {
        return state.getForUpdate();
    }

    /**
     * Replaces the value with {@code change} applied to it, under the write lock ({@link #getForUpdate()}
     * then {@link #set(Object)}), and returns the new value. {@code change} may run more than once for one
     * hop (a hop that waits for the lock runs again), so it should only compute.
     *
     * @throws IllegalStateException outside an atomic chain
     */
    public T update(UnaryOperator<T> change) {
        T next = Objects.requireNonNull(change.apply(getForUpdate()), "the new value");
        set(next);
        return next;
    }

    /**
     * Writes {@code value} in the current atomic chain's transaction (under the variable's write lock);
     * others see it once the transaction commits.
     *
     * @throws IllegalStateException outside an atomic chain
     */
    public void set(T value) {
        state.set(Objects.requireNonNull(value, "value"));
    }

    /** The last committed value, without a lock, also inside an atomic chain. */
    public T committed() {
        return state.committed();
    }

    /** The name given to {@link #of(String, Object)}. */
    public String name() {
        return state.name();
    }

    /** The engine's state of this variable, for tests of the engine. */
    VarState<T> state() {
        return state;
    }

    @Override
    public String toString() {
        return "TxVar " + state.name() + " = " + state.committed();
    }
}
