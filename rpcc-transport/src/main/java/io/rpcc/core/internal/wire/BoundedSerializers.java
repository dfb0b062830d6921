package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.CollectionSerializer;
import com.esotericsoftware.kryo.serializers.MapSerializer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.Function;

/**
 * Serializers for the built-in arrays, collections and maps that refuse element counts larger than
 * the bytes left in the frame (every element takes at least one byte), so a corrupt frame cannot
 * make a node allocate gigabytes.
 */
final class BoundedSerializers {
    private BoundedSerializers() {
    }

    static void checkCount(Input input, long count, Class<?> type) {
        long left = input.limit() - input.position();
        if (count < 0 || count > left) {
            throw new KryoException("corrupt length " + count + " for " + type.getName() + " (" + left
                    + " bytes left in the frame)");
        }
    }

    /**
     * Refuses to send a collection or map that {@link #checkCount} would refuse when reading it: one
     * whose {@code count} elements, written from {@code start}, take fewer bytes than their number
     * (elements that serialize to nothing, such as empty collections), which a receiver cannot tell
     * from a corrupt length. The sender gets a typed error instead of the receiver a malformed frame.
     */
    static void checkWritten(Output output, long start, int count, Class<?> type) {
        long elementBytes = output.total() - start - lengthBytes(count + 1);
        if (count > elementBytes) {
            throw new KryoException("cannot send a " + type.getName() + " of " + count + " elements that take only "
                    + elementBytes + " bytes (elements such as empty collections serialize to nothing); a receiver "
                    + "refuses more elements than bytes");
        }
    }

    /** The bytes of Kryo's flagged varint for {@code value} (6 bits in the first byte, 7 in the others). */
    private static int lengthBytes(int value) {
        int bytes = 1;
        for (long rest = (value & 0xFFFFFFFFL) >>> 6; rest != 0; rest >>>= 7) {
            bytes++;
        }
        return bytes;
    }

    /** An array serializer (encoding: varint length + 1, then the elements), bounded. */
    static final class BoundedArray<T> extends Serializer<T> {
        private final Serializer<T> delegate;

        @SuppressWarnings("unchecked")
        BoundedArray(Serializer<?> delegate) {
            super(delegate.getAcceptsNull(), delegate.isImmutable());
            this.delegate = (Serializer<T>) delegate;
        }

        @Override
        public void write(Kryo kryo, Output output, T object) {
            delegate.write(kryo, output, object);
        }

        @Override
        public T read(Kryo kryo, Input input, Class<? extends T> type) {
            int start = input.position();
            long count = (input.readVarInt(true) & 0xFFFFFFFFL) - 1; // -1: a null array
            input.setPosition(start);
            if (count >= 0) {
                checkCount(input, count, type);
            }
            return delegate.read(kryo, input, type);
        }

        @Override
        public T copy(Kryo kryo, T original) {
            return delegate.copy(kryo, original);
        }
    }

    /**
     * Most elements of a hashed collection (a set's elements, a map's keys) that may share one hash
     * code. Elements with equal hash codes are told apart by {@code equals}, which for nested
     * collections walks them whole: a few hundred bytes of colliding maps made a node spend a
     * millisecond per frame. Genuine values almost never have more than a handful of equal hashes.
     */
    static final int MAX_SAME_HASH = 16;

    /**
     * Most elements that are themselves collections or maps and share one hash code. Their
     * hashes collide at will ({@code Map.of(x, x)} hashes to 0 for any {@code x}), and each pair that
     * collides is compared whole: 16 of them cost 120 deep comparisons (an 885-byte frame of nested
     * singleton maps allocated 1.6 MB every time it was decoded). Sets of maps with equal hashes are
     * no genuine value's shape.
     */
    static final int MAX_SAME_HASH_NESTED = 2;

    /**
     * Most levels of collections and maps inside a set's element or a map's key (arrays compare by
     * identity and end the count). Comparing two
     * equal such values costs time exponential in their nesting: {@code AbstractMap.equals} compares
     * each key twice when its value is null ({@code get}, then {@code containsKey}), and a probing set
     * compares an element with several others; a 244-byte frame of nested singleton maps allocated
     * megabytes every time it was decoded. Genuine keys are flat (a list of strings, a record).
     */
    static final int MAX_KEY_NESTING = 4;

    /** The levels of collections and maps in {@code value}, counted up to {@code cap}. */
    private static int nesting(Object value, int cap) {
        if (cap == 0) {
            return 0;
        }
        Iterable<?> children;
        if (value instanceof Collection<?> c) {
            children = c;
        } else if (value instanceof Map<?, ?> m) {
            java.util.List<Object> both = new java.util.ArrayList<>(2 * m.size());
            m.forEach((k, v) -> {
                both.add(k);
                both.add(v);
            });
            children = both;
        } else {
            return 0;
        }
        int deepest = 0;
        for (Object child : children) {
            deepest = Math.max(deepest, nesting(child, cap - 1));
            if (deepest + 1 >= cap) {
                break;
            }
        }
        return deepest + 1;
    }

    /**
     * Refuses {@code elements} (to go into a hashed {@code type}) if one holds collections more than
     * {@link #MAX_KEY_NESTING} levels deep, if more than {@link #MAX_SAME_HASH}
     * of them have the same hash code, or more than {@link #MAX_SAME_HASH_NESTED} of those that are
     * collections or maps: hash flooding. Each element is hashed once.
     */
    static void checkHashSpread(Collection<?> elements, Class<?> type) {
        for (Object e : elements) {
            if (nesting(e, MAX_KEY_NESTING + 1) > MAX_KEY_NESTING) {
                throw new KryoException("a " + type.getName() + " whose elements or keys hold collections or maps "
                        + "more than " + MAX_KEY_NESTING + " levels deep (their comparisons would cost "
                        + "exponential time)");
            }
        }
        if (elements.size() <= MAX_SAME_HASH_NESTED) {
            return;
        }
        Map<Integer, Integer> counts = new HashMap<>();
        Map<Integer, Integer> nestedCounts = new HashMap<>();
        for (Object e : elements) {
            int hash = java.util.Objects.hashCode(e);
            if (counts.merge(hash, 1, Integer::sum) > MAX_SAME_HASH) {
                throw new KryoException("a " + type.getName() + " of " + elements.size() + " elements with more than "
                        + MAX_SAME_HASH + " of the same hash code (hash flooding)");
            }
            if ((e instanceof Collection<?> || e instanceof Map<?, ?>)
                    && nestedCounts.merge(hash, 1, Integer::sum) > MAX_SAME_HASH_NESTED) {
                throw new KryoException("a " + type.getName() + " of " + elements.size() + " elements with more than "
                        + MAX_SAME_HASH_NESTED + " collections or maps of the same hash code (hash flooding)");
            }
        }
    }

    /**
     * Kryo's collection serializer, bounded. A set is read into a list first, and made a set only
     * once its elements passed {@link #checkHashSpread}.
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static class BoundedCollection extends CollectionSerializer<Collection> {
        @Override
        public void write(Kryo kryo, Output output, Collection collection) {
            long start = output.total();
            super.write(kryo, output, collection);
            checkWritten(output, start, collection.size(), collection.getClass());
        }

        @Override
        protected Collection create(Kryo kryo, Input input, Class<? extends Collection> type, int size) {
            checkCount(input, size, type);
            return hashed(type) ? new ArrayList(size) : super.create(kryo, input, type, size);
        }

        @Override
        public Collection read(Kryo kryo, Input input, Class<? extends Collection> type) {
            Collection read = super.read(kryo, input, type);
            if (!hashed(type) || read == null) {
                return read;
            }
            checkHashSpread(read, type);
            return type == HashSet.class ? new HashSet(read) : new LinkedHashSet(read);
        }

        /** Whether {@code type} hashes its elements (read into a list first). */
        boolean hashed(Class<?> type) {
            return type == HashSet.class || type == LinkedHashSet.class;
        }
    }

    /**
     * Kryo's map serializer, bounded. Entries are read into lists first, and made a map only once
     * the keys passed {@link #checkHashSpread}.
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static class BoundedMap extends MapSerializer<Map> {
        @Override
        public void write(Kryo kryo, Output output, Map map) {
            long start = output.total();
            super.write(kryo, output, map);
            checkWritten(output, start, map.size(), map.getClass());
        }

        @Override
        protected Map create(Kryo kryo, Input input, Class<? extends Map> type, int size) {
            checkCount(input, size, type);
            return new EntryList(size);
        }

        @Override
        public Map read(Kryo kryo, Input input, Class<? extends Map> type) {
            Map read = super.read(kryo, input, type);
            if (!(read instanceof EntryList entries)) {
                return read;
            }
            checkHashSpread(entries.keys, type);
            Map out = type == HashMap.class ? new HashMap(entries.keys.size() * 2) : new LinkedHashMap(entries.keys.size() * 2);
            for (int i = 0; i < entries.keys.size(); i++) {
                out.put(entries.keys.get(i), entries.values.get(i));
            }
            return out;
        }
    }

    /** The entries of a map being read, in order, not yet hashed. */
    @SuppressWarnings("rawtypes")
    private static final class EntryList extends java.util.AbstractMap<Object, Object> {
        final List<Object> keys;
        final List<Object> values;

        EntryList(int size) {
            keys = new ArrayList<>(size);
            values = new ArrayList<>(size);
        }

        @Override
        public Object put(Object key, Object value) {
            keys.add(key);
            values.add(value);
            return null;
        }

        @Override
        public Set<Entry<Object, Object>> entrySet() {
            throw new UnsupportedOperationException("entries being read");
        }
    }

    /**
     * {@code List.of(...)} and {@code Set.of(...)}: read into a mutable collection, then copied
     * into an immutable one.
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static final class ImmutableCollection extends BoundedCollection {
        private final IntFunction<Collection> mutable;
        private final Function<Collection, Collection> immutable;

        private ImmutableCollection(IntFunction<Collection> mutable,
                                    Function<Collection, Collection> immutable) {
            this.mutable = mutable;
            this.immutable = immutable;
            setElementsCanBeNull(false);
        }

        static ImmutableCollection list() {
            return new ImmutableCollection(ArrayList::new, List::copyOf);
        }

        static ImmutableCollection set() {
            return new ImmutableCollection(ArrayList::new, elements -> Set.copyOf(elements));
        }

        @Override
        protected Collection create(Kryo kryo, Input input, Class<? extends Collection> type, int size) {
            checkCount(input, size, type);
            return mutable.apply(size);
        }

        @Override
        public Collection read(Kryo kryo, Input input, Class<? extends Collection> type) {
            Collection read = super.read(kryo, input, type);
            if (Set.class.isAssignableFrom(type)) {
                checkHashSpread(read, type);
            }
            return immutable.apply(read);
        }

        @Override
        boolean hashed(Class<?> type) {
            return false; // (read into the mutable collection above)
        }
    }

    /** {@code Map.of(...)}. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static final class ImmutableMap extends BoundedMap {
        @Override
        public Map read(Kryo kryo, Input input, Class<? extends Map> type) {
            return Map.copyOf(super.read(kryo, input, type)); // (keys checked above)
        }
    }
}
