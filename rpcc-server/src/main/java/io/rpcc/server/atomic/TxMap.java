package io.rpcc.server.atomic;

import io.rpcc.server.internal.atomic.MapState;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A map that atomic chains read and change as part of their transaction. Each key has its own read
 * and write lock, so transactions on different keys do not wait for each other; reads of the whole
 * map ({@link #size()}, {@link #keys()}) take a map-wide read lock that any {@link #put} or
 * {@link #remove} waits for (and that waits for them), so a transaction that counted the keys sees the
 * same count until it ends. All locks are held until the transaction ends, writes become visible to
 * others when it commits (see {@link TxVar} and the {@linkplain io.rpcc.server.atomic package}).
 *
 * <p>Outside an atomic chain, {@link #get(Object)}, {@link #containsKey(Object)}, {@link #size()} and
 * {@link #keys()} read the committed map without locks, and {@link #put} and {@link #remove} are
 * refused; {@link #putCommitted(Object, Object)} fills the map at setup. Keys and values are never
 * null; keys need {@code equals} and {@code hashCode}, and both should be immutable. The map lives in
 * the JVM's memory: it is not persisted.
 *
 * @param <K> the keys' type
 * @param <V> the values' type
 */
public final class TxMap<K, V> {
    private final MapState<K, V> state;

    private TxMap(MapState<K, V> state) {
        this.state = state;
    }

    /**
     * A new, empty map.
     *
     * @param name a name for errors and logs (not necessarily unique)
     */
    public static <K, V> TxMap<K, V> create(String name) {
        return new TxMap<>(new MapState<>(Objects.requireNonNull(name, "name")));
    }

    /** The value of {@code key} this transaction sees (read lock on the key), or the committed one outside. */
    public @Nullable V get(K key) {
        return state.get(Objects.requireNonNull(key, "key"));
    }

    /**
     * The value of {@code key} this transaction sees, or null, under the key's write lock, for a
     * transaction that reads a key in order to write it (see {@link TxVar#getForUpdate()}: several
     * transactions that read a key and then write it wound each other; these queue instead).
     *
     * @throws IllegalStateException outside an atomic chain
     */
    public @Nullable V getForUpdate(K key) {
        return state.getForUpdate(Objects.requireNonNull(key, "key"));
    }

    /**
     * Maps {@code key} to {@code value} in the current atomic chain's transaction (write lock on the
     * key).
     *
     * @return the value this transaction saw before, or null
     * @throws IllegalStateException outside an atomic chain
     */
    public @Nullable V put(K key, V value) {
        return state.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /**
     * Removes {@code key} in the current atomic chain's transaction (write lock on the key).
     *
     * @return the value this transaction saw before, or null
     * @throws IllegalStateException outside an atomic chain
     */
    public @Nullable V remove(K key) {
        return state.remove(Objects.requireNonNull(key, "key"));
    }

    /** Whether this transaction sees {@code key} (read lock on the key), or the committed map has it outside. */
    public boolean containsKey(K key) {
        return state.containsKey(Objects.requireNonNull(key, "key"));
    }

    /** How many keys this transaction sees (map-wide read lock), or the committed map has outside. */
    public int size() {
        return state.size();
    }

    /** A copy of the keys this transaction sees (map-wide read lock), or of the committed map's outside. */
    public Set<K> keys() {
        return state.keys();
    }

    /**
     * Sets {@code key}'s committed value directly, for setup: outside atomic chains, while no
     * transaction holds a lock on the key or the whole map.
     *
     * @throws IllegalStateException inside an atomic chain, or while a transaction holds such a lock
     */
    public void putCommitted(K key, V value) {
        state.putCommitted(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /** A copy of the committed map, without locks, also inside an atomic chain. */
    public Map<K, V> committed() {
        return state.committed();
    }

    /** The name given to {@link #create(String)}. */
    public String name() {
        return state.name();
    }

    /** The engine's state of this map, for tests of the engine. */
    MapState<K, V> state() {
        return state;
    }

    @Override
    public String toString() {
        return "TxMap " + state.name();
    }
}
