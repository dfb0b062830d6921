package io.rpcc.server.internal;

import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/**
 * An estimate of the heap bytes that the values of a cached hop outcome ({@link HopOutcomes}) hold:
 * strings, arrays, boxed values, collections, maps, {@link ChainState}s and records are looked into
 * (at most {@value #MAX_DEPTH} levels deep; of a collection, map or array the first
 * {@value #SAMPLED} elements, the rest counted as their average); anything else counts
 * {@value #OPAQUE} bytes. Cheap, allocation-free for those types, and an estimate only: the
 * cache's byte bound is as exact as this.
 */
final class OutcomeFootprint {
    /** What an object this estimate does not look into counts. */
    static final int OPAQUE = 64;
    private static final int MAX_DEPTH = 8;
    private static final int SAMPLED = 64;
    private static final int HEADER = 16;
    private static final int REFERENCE = 8;

    /** The accessors of each record class ({@code null} where they cannot be reached). */
    private static final ClassValue<MethodHandle[]> COMPONENTS = new ClassValue<>() {
        @Override
        protected MethodHandle[] computeValue(Class<?> type) {
            RecordComponent[] components = type.getRecordComponents();
            MethodHandle[] handles = new MethodHandle[components.length];
            try {
                for (int i = 0; i < components.length; i++) {
                    var accessor = components[i].getAccessor();
                    accessor.setAccessible(true);
                    // (Object)Object, called with invokeExact: no type adaptation per call
                    handles[i] = MethodHandles.lookup().unreflect(accessor)
                            .asType(MethodType.methodType(Object.class, Object.class));
                }
                return handles;
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
    };

    private OutcomeFootprint() {
    }

    /** The estimated bytes of {@code value}. */
    static long of(Object value) {
        return of(value, 0);
    }

    private static long of(Object v, int depth) {
        if (v == null) {
            return 0;
        }
        if (depth >= MAX_DEPTH) {
            return OPAQUE;
        }
        return switch (v) {
            case String s -> HEADER + 24 + s.length();
            case Number n -> HEADER + 8;
            case Boolean b -> 0; // shared instances
            case Character c -> HEADER;
            case Enum<?> e -> 0; // shared instances
            case byte[] a -> HEADER + a.length;
            case int[] a -> HEADER + 4L * a.length;
            case long[] a -> HEADER + 8L * a.length;
            case double[] a -> HEADER + 8L * a.length;
            case float[] a -> HEADER + 4L * a.length;
            case short[] a -> HEADER + 2L * a.length;
            case char[] a -> HEADER + 2L * a.length;
            case boolean[] a -> HEADER + a.length;
            case Object[] a -> HEADER + (long) REFERENCE * a.length + elements(java.util.Arrays.asList(a), a.length, depth);
            case Collection<?> c -> HEADER + 32 + (long) REFERENCE * c.size() + elements(c, c.size(), depth);
            case Map<?, ?> m -> HEADER + 48 + 32L * m.size() + entries(m, depth);
            case ChainState st -> HEADER + entries(st.asMap(), depth);
            case ChainingFunctionSource f -> 0; // the chain's own, held by its header anyway
            case Record r -> record(r, depth);
            default -> OPAQUE;
        };
    }

    private static long elements(Iterable<?> values, int size, int depth) {
        long sum = 0;
        int seen = 0;
        for (Iterator<?> it = values.iterator(); it.hasNext() && seen < SAMPLED; seen++) {
            sum += of(it.next(), depth + 1);
        }
        return seen == 0 || seen >= size ? sum : sum + (sum / seen) * (size - seen);
    }

    private static long entries(Map<?, ?> map, int depth) {
        long sum = 0;
        int seen = 0;
        for (Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator(); it.hasNext() && seen < SAMPLED; seen++) {
            Map.Entry<?, ?> e = it.next();
            sum += of(e.getKey(), depth + 1) + of(e.getValue(), depth + 1);
        }
        int size = map.size();
        return seen == 0 || seen >= size ? sum : sum + (sum / seen) * (size - seen);
    }

    private static long record(Record r, int depth) {
        MethodHandle[] components = COMPONENTS.get(r.getClass());
        if (components == null) {
            return OPAQUE;
        }
        long sum = HEADER + (long) REFERENCE * components.length;
        for (MethodHandle component : components) {
            try {
                sum += of((Object) component.invokeExact((Object) r), depth + 1);
            } catch (Throwable e) {
                return sum + OPAQUE; // an accessor that throws: count what is known
            }
        }
        return sum;
    }
}
