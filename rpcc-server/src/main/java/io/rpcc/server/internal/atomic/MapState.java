package io.rpcc.server.internal.atomic;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The engine's side of a {@code TxMap}: the committed map, a lock per key (made when a transaction
 * first asks for it, dropped when nobody holds or waits for it), and a map-wide lock that whole-map
 * reads take shared and writers take in intention-to-write mode.
 */
public final class MapState<K, V> {
    /** A removal in a write layer. */
    static final Object TOMBSTONE = new Object() {
        @Override
        public String toString() {
            return "(removed)";
        }
    };

    private final String name;
    private final ConcurrentHashMap<K, V> committed = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<K, TxLock> keyLocks = new ConcurrentHashMap<>();
    private final TxLock mapLock;

    /** An empty map named {@code name}. */
    public MapState(String name) {
        this.name = name;
        this.mapLock = new TxLock("TxMap " + name + " (the whole map)", null);
    }

    /** The map's name. */
    public String name() {
        return name;
    }

    private TxLock keyLock(K key) {
        return keyLocks.computeIfAbsent(key, k -> new TxLock("TxMap " + name + " key " + k,
                lock -> keyLocks.remove(k, lock)));
    }

    /** See {@code TxMap.get}. */
    public @Nullable V get(K key) {
        HopAttempt a = TxContext.current();
        if (a == null) {
            return committed.get(key);
        }
        a.lock(() -> keyLock(key), TxLock.S);
        return a.read(this, key);
    }

    /** See {@code TxMap.getForUpdate}. */
    public @Nullable V getForUpdate(K key) {
        HopAttempt a = TxContext.required("TxMap " + name + ".getForUpdate");
        a.lock(() -> mapLock, TxLock.IX);
        a.lock(() -> keyLock(key), TxLock.X);
        return a.read(this, key);
    }

    /** See {@code TxMap.put}. */
    public @Nullable V put(K key, V value) {
        HopAttempt a = TxContext.required("TxMap " + name + ".put");
        return write(a, key, value);
    }

    /** See {@code TxMap.remove}. */
    public @Nullable V remove(K key) {
        HopAttempt a = TxContext.required("TxMap " + name + ".remove");
        return write(a, key, TOMBSTONE);
    }

    private @Nullable V write(HopAttempt a, K key, Object valueOrTombstone) {
        a.lock(() -> mapLock, TxLock.IX);
        a.lock(() -> keyLock(key), TxLock.X);
        V old = a.read(this, key);
        a.write(this, key, valueOrTombstone);
        return old;
    }

    /** See {@code TxMap.containsKey}. */
    public boolean containsKey(K key) {
        HopAttempt a = TxContext.current();
        if (a == null) {
            return committed.containsKey(key);
        }
        a.lock(() -> keyLock(key), TxLock.S);
        return a.read(this, key) != null;
    }

    /** See {@code TxMap.size}. */
    public int size() {
        HopAttempt a = TxContext.current();
        return a == null ? committed.size() : keysSeen(a).size();
    }

    /** See {@code TxMap.keys}. */
    public Set<K> keys() {
        HopAttempt a = TxContext.current();
        return Set.copyOf(a == null ? committed.keySet() : keysSeen(a));
    }

    @SuppressWarnings("unchecked")
    private Set<K> keysSeen(HopAttempt a) {
        a.lock(() -> mapLock, TxLock.S);
        Set<Object> keys = new HashSet<>(committed.keySet());
        a.overlayKeys(this, keys);
        return (Set<K>) (Set<?>) keys;
    }

    /** See {@code TxMap.putCommitted}. */
    public void putCommitted(K key, V value) {
        if (TxContext.current() != null) {
            throw new IllegalStateException("TxMap " + name + ".putCommitted inside an atomic chain: it is for"
                    + " setup outside transactions; use put(key, value) in the chain");
        }
        TxLock keyLock = keyLocks.get(key);
        if (mapLock.isHeld() || (keyLock != null && keyLock.isHeld())) {
            throw new IllegalStateException("TxMap " + name + ".putCommitted(" + key + ", ...) while a transaction"
                    + " holds a lock on the key or the whole map: it is for setup, before atomic chains use"
                    + " the map; change the map in an atomic chain instead");
        }
        committed.put(key, value);
    }

    /** A copy of the committed map. */
    public Map<K, V> committed() {
        return Map.copyOf(committed);
    }

    @Nullable V committedValue(K key) {
        return committed.get(key);
    }

    @SuppressWarnings("unchecked")
    void apply(Map<Object, Object> writes) {
        for (Map.Entry<Object, Object> e : writes.entrySet()) {
            if (e.getValue() == TOMBSTONE) {
                committed.remove((K) e.getKey());
            } else {
                committed.put((K) e.getKey(), (V) e.getValue());
            }
        }
    }

    static void overlay(Map<Object, Object> writes, Set<Object> keys) {
        for (Map.Entry<Object, Object> e : writes.entrySet()) {
            if (e.getValue() == TOMBSTONE) {
                keys.remove(e.getKey());
            } else {
                keys.add(e.getKey());
            }
        }
    }

    /** How many per-key locks exist now (for tests: none once no transaction is active). */
    public int keyLockCount() {
        return keyLocks.size();
    }

    /** Whether nobody holds or waits for the map-wide lock (for tests). */
    public boolean isMapLockIdle() {
        return mapLock.isIdle();
    }

    /** Its locks' holders and waiters, one lock a line, for diagnostics. */
    public String describeLocks() {
        StringBuilder b = new StringBuilder(mapLock.describe());
        for (TxLock l : keyLocks.values()) {
            b.append('\n').append(l.describe());
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return "TxMap " + name;
    }
}
