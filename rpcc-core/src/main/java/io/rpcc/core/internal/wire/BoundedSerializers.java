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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

    /** Kryo's collection serializer, bounded. */
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
            return super.create(kryo, input, type, size);
        }
    }

    /** Kryo's map serializer, bounded. */
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
            return super.create(kryo, input, type, size);
        }
    }

    /**
     * {@code List.of(...)} and {@code Set.of(...)}: read into a mutable collection, then copied
     * into an immutable one.
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static final class ImmutableCollection extends BoundedCollection {
        private final java.util.function.IntFunction<Collection> mutable;
        private final java.util.function.Function<Collection, Collection> immutable;

        private ImmutableCollection(java.util.function.IntFunction<Collection> mutable,
                                    java.util.function.Function<Collection, Collection> immutable) {
            this.mutable = mutable;
            this.immutable = immutable;
            setElementsCanBeNull(false);
        }

        static ImmutableCollection list() {
            return new ImmutableCollection(ArrayList::new, List::copyOf);
        }

        static ImmutableCollection set() {
            return new ImmutableCollection(size -> new LinkedHashSet(), Set::copyOf);
        }

        @Override
        protected Collection create(Kryo kryo, Input input, Class<? extends Collection> type, int size) {
            checkCount(input, size, type);
            return mutable.apply(size);
        }

        @Override
        public Collection read(Kryo kryo, Input input, Class<? extends Collection> type) {
            return immutable.apply(super.read(kryo, input, type));
        }
    }

    /** {@code Map.of(...)}. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static final class ImmutableMap extends BoundedMap {
        @Override
        protected Map create(Kryo kryo, Input input, Class<? extends Map> type, int size) {
            checkCount(input, size, type);
            return new HashMap();
        }

        @Override
        public Map read(Kryo kryo, Input input, Class<? extends Map> type) {
            return Map.copyOf(super.read(kryo, input, type));
        }
    }
}
