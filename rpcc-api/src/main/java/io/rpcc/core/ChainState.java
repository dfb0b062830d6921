package io.rpcc.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The chain state: a small, immutable set of name-value pairs that travels along the chain and is
 * handed to every chaining function (paper section 3.3). Keep it small: it is sent on every hop.
 *
 * <pre>{@code
 * ChainState state = ChainState.of("sku", "A-42", "qty", 3);
 * ChainState next = state.with("price", 12.5);   // state itself is unchanged
 * int qty = next.get("qty", Integer.class);
 * }</pre>
 *
 * <p>Values are serialized with Kryo, so their classes must be registered ({@link TypeRegistry}).
 */
public final class ChainState {
    private static final ChainState EMPTY = new ChainState(Map.of());

    private final Map<String, Object> values;

    private ChainState(Map<String, Object> values) {
        this.values = values;
    }

    /** The state with no entries. */
    public static ChainState empty() {
        return EMPTY;
    }

    /**
     * A state holding the given name-value pairs, in order.
     *
     * @param namesAndValues {@code name1, value1, name2, value2, ...}
     */
    public static ChainState of(@Nullable Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("ChainState.of needs name-value pairs, got an odd number of arguments");
        }
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (!(namesAndValues[i] instanceof String name)) {
                throw new IllegalArgumentException("state names must be strings, got " + namesAndValues[i]);
            }
            map.put(name, namesAndValues[i + 1]);
        }
        return new ChainState(Collections.unmodifiableMap(map));
    }

    /** A state holding a copy of {@code map}. */
    public static ChainState fromMap(Map<String, ?> map) {
        if (map.isEmpty()) {
            return EMPTY;
        }
        return new ChainState(Collections.unmodifiableMap(new LinkedHashMap<>(map)));
    }

    /** A copy of this state with {@code name} set to {@code value}. */
    public ChainState with(String name, @Nullable Object value) {
        Objects.requireNonNull(name, "name");
        Map<String, Object> map = new LinkedHashMap<>(values);
        map.put(name, value);
        return new ChainState(Collections.unmodifiableMap(map));
    }

    /** A copy of this state without {@code name}. */
    public ChainState without(String name) {
        if (!values.containsKey(name)) {
            return this;
        }
        Map<String, Object> map = new LinkedHashMap<>(values);
        map.remove(name);
        return map.isEmpty() ? EMPTY : new ChainState(Collections.unmodifiableMap(map));
    }

    /** The value of {@code name}, or {@code null}. */
    public @Nullable Object get(String name) {
        return values.get(name);
    }

    /**
     * The value of {@code name} as a {@code type}.
     *
     * @throws IllegalStateException if there is no such entry
     * @throws ClassCastException if the value is of another type
     */
    public <T> @Nullable T get(String name, Class<T> type) {
        Object value = values.get(name);
        if (value == null && !values.containsKey(name)) {
            throw new IllegalStateException("chain state has no entry '" + name + "' (names: " + values.keySet() + ")");
        }
        return type.cast(value);
    }

    /** The value of {@code name}, or {@code defaultValue} if there is no such entry. */
    public <T> @Nullable T getOrDefault(String name, @Nullable T defaultValue) {
        @SuppressWarnings("unchecked")
        T value = (T) values.getOrDefault(name, defaultValue);
        return value;
    }

    /** Whether the state has an entry {@code name}. */
    public boolean contains(String name) {
        return values.containsKey(name);
    }

    /** The names, in insertion order. */
    public Set<String> names() {
        return values.keySet();
    }

    /** The number of entries. */
    public int size() {
        return values.size();
    }

    /** An unmodifiable view of the entries. */
    public Map<String, Object> asMap() {
        return values;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChainState other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "ChainState" + values;
    }
}
