package io.rpcc.core.internal.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.KryoBufferOverflowException;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.FailureFields;
import io.rpcc.core.Refusal;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.spi.EngineSpi;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * Kryo configured for one node: registration required, rpcc's built-in JDK types at fixed ids
 * below 100, then the user's {@link TypeRegistry}. Kryo instances are not thread-safe, so they are
 * pooled.
 */
@EngineSpi
public final class Serialization {
    private static final Pattern NOT_REGISTERED = Pattern.compile("Class is not registered: ([\\w.$\\[\\];]+)");

    /** Default deepest nesting of a value, in Kryo objects (a list of lists of strings: 3). */
    public static final int DEFAULT_MAX_DEPTH = 128;
    private static final String MAX_DEPTH = "Max depth exceeded";

    private final TypeRegistry types;
    private final int maxDepth;
    private final Consumer<Refusal> refused;
    private final SlotPool<Kryo> pool;

    /** Serialization for a node that registered {@code types}, with the default nesting limit, counting nothing. */
    public Serialization(TypeRegistry types) {
        this(types, DEFAULT_MAX_DEPTH, r -> { });
    }

    /**
     * Serialization for a node that registered {@code types}, refusing values nested deeper than
     * {@code maxDepth}; values refused while decoding are reported to {@code refused}.
     */
    public Serialization(TypeRegistry types, int maxDepth, Consumer<Refusal> refused) {
        this.types = types;
        this.maxDepth = maxDepth;
        this.refused = refused;
        this.pool = new SlotPool<>(Math.max(64, 8 * Runtime.getRuntime().availableProcessors()),
                () -> newKryo(types, maxDepth));
        pool.free(pool.obtain()); // fail fast on a bad registry
    }

    /** The user's types. */
    public TypeRegistry types() {
        return types;
    }

    /** The deepest nesting of a value this node sends or accepts. */
    public int maxDepth() {
        return maxDepth;
    }

    /**
     * Runs {@code work} with a pooled Kryo. A Kryo that saw a stack overflow (a {@link HopFailure}
     * caused by one) is dropped rather than pooled: its depth count may be off.
     */
    public <T> T withKryo(Function<Kryo, T> work) {
        Kryo kryo = pool.obtain();
        boolean sound = false;
        try {
            T result = work.apply(kryo);
            sound = true;
            return result;
        } catch (RuntimeException e) {
            sound = !(e.getCause() instanceof StackOverflowError);
            throw e;
        } finally {
            if (sound) {
                pool.free(kryo);
            }
        }
    }

    static Kryo newKryo(TypeRegistry types, int maxDepth) {
        Kryo kryo = new Kryo(new RegisteredIdsOnly(), null);
        kryo.setRegistrationRequired(true);
        kryo.setReferences(false);
        kryo.setMaxDepth(maxDepth);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        kryo.addDefaultSerializer(UUID.class, new UuidSerializer());
        // Kryo itself registers the primitives and String with ids 0..9.
        int id = 20;
        for (Class<?> c : builtInTypes()) {
            kryo.register(c, boundedSerializer(kryo, c), id++);
        }
        for (TypeRegistry.Registration r : types.registrations()) {
            if (r.serializer() != null) {
                kryo.register(r.type(), r.serializer(), r.id());
            } else {
                kryo.register(r.type(), r.id());
            }
        }
        return kryo;
    }

    /** The serializer for built-in {@code type}: bounded for arrays, collections and maps. */
    private static com.esotericsoftware.kryo.Serializer<?> boundedSerializer(Kryo kryo, Class<?> type) {
        String name = type.getName();
        if (type.isArray() || type == BigInteger.class || type == BigDecimal.class) { // length + 1, then bytes
            return new BoundedSerializers.BoundedArray<>(kryo.getDefaultSerializer(type));
        } else if (name.startsWith("java.util.ImmutableCollections$List")) {
            return BoundedSerializers.ImmutableCollection.list();
        } else if (name.startsWith("java.util.ImmutableCollections$Set")) {
            return BoundedSerializers.ImmutableCollection.set();
        } else if (name.startsWith("java.util.ImmutableCollections$Map")) {
            return new BoundedSerializers.ImmutableMap();
        } else if (type == ArrayList.class || type == LinkedList.class || type == ArrayDeque.class
                || type == HashSet.class || type == LinkedHashSet.class) {
            return new BoundedSerializers.BoundedCollection();
        } else if (type == HashMap.class || type == LinkedHashMap.class) {
            return new BoundedSerializers.BoundedMap();
        }
        return kryo.getDefaultSerializer(type);
    }

    /** The JDK types every node registers, in id order (ids 20..). Append only: the order is the protocol. */
    static List<Class<?>> builtInTypes() {
        return List.of(
                byte[].class, int[].class, long[].class, double[].class, float[].class, short[].class, char[].class,
                boolean[].class, String[].class, Object[].class,
                ArrayList.class, LinkedList.class, ArrayDeque.class, HashMap.class, LinkedHashMap.class,
                TreeMap.class, HashSet.class, LinkedHashSet.class, TreeSet.class,
                List.of(1).getClass(), List.of(1, 2, 3).getClass(),
                Set.of(1).getClass(), Set.of(1, 2, 3).getClass(),
                Map.of(1, 1).getClass(), Map.of(1, 1, 2, 2).getClass(),
                Collections.emptyList().getClass(), Collections.emptySet().getClass(),
                Collections.emptyMap().getClass(), Collections.singletonList(1).getClass(),
                Collections.singleton(1).getClass(), Collections.singletonMap(1, 1).getClass(),
                BigInteger.class, BigDecimal.class, UUID.class,
                Instant.class, Duration.class, LocalDate.class, LocalTime.class, LocalDateTime.class,
                ZonedDateTime.class, OffsetDateTime.class, java.time.ZoneOffset.class,
                java.time.ZoneId.of("Europe/Paris").getClass());
    }

    private static final class UuidSerializer extends com.esotericsoftware.kryo.Serializer<UUID> {
        UuidSerializer() {
            setImmutable(true);
        }

        @Override
        public void write(Kryo kryo, com.esotericsoftware.kryo.io.Output output, UUID uuid) {
            output.writeLong(uuid.getMostSignificantBits());
            output.writeLong(uuid.getLeastSignificantBits());
        }

        @Override
        public UUID read(Kryo kryo, com.esotericsoftware.kryo.io.Input input, Class<? extends UUID> type) {
            return new UUID(input.readLong(), input.readLong());
        }
    }

    /**
     * Turns a Kryo failure while writing {@code what} into a typed hop failure: an unregistered class
     * (named), a value over the frame limit, or another serialization error.
     */
    public HopFailure encodeFailure(Throwable e, String what, int maxFrameSize) {
        if (e instanceof StackOverflowError) {
            return new HopFailure(ChainErrorCode.MALFORMED_FRAME, "cannot serialize " + what + ": its serializer "
                    + "overflowed the stack (a cyclic value, or one nested too deeply)", e);
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (isTooDeep(t)) {
                return new HopFailure(ChainErrorCode.MALFORMED_FRAME, "cannot serialize " + what + ": it is nested more "
                        + "than " + maxDepth + " levels deep (a cyclic value, or one nested too deeply); "
                        + "flatten it, or raise the limit on every node with NodeBuilder.maxValueDepth", e);
            }
            if (t instanceof KryoBufferOverflowException) {
                return new HopFailure(ChainErrorCode.FRAME_TOO_LARGE, what + " does not fit in the maximum frame size of "
                        + maxFrameSize + " bytes", e);
            }
            String msg = t.getMessage();
            Matcher m = msg == null ? null : NOT_REGISTERED.matcher(msg);
            if (m != null && m.find()) {
                String type = m.group(1);
                return new HopFailure(ChainErrorCode.UNREGISTERED_TYPE, ChainErrors.exceptionName(ChainErrorCode.UNREGISTERED_TYPE),
                        "cannot send " + what + ": class " + type + " is not registered for serialization; register it "
                        + "on every node with TypeRegistry.builder().register(" + type.replace('$', '.') + ".class)"
                        + SPRING_HINT,
                        List.of(), new FailureFields(false, null, type, null, List.of()), e);
            }
        }
        return new HopFailure(ChainErrorCode.MALFORMED_FRAME, "cannot serialize " + what + ": " + e, e);
    }

    private static boolean isTooDeep(Throwable t) {
        return t instanceof KryoException && t.getMessage() != null && t.getMessage().startsWith(MAX_DEPTH);
    }

    /** How Spring Boot applications register types, for the messages of unregistered types. */
    private static final String SPRING_HINT = " (with the Spring Boot starter: list it in the rpcc.types property, or "
            + "annotate it @RpccType in a package that rpcc.types-packages scans)";

    /**
     * The refusal that a failure to decode a received value is (its cause {@link #decodeFailure}
     * kept): {@link Refusal#CLASS_NAME}, {@link Refusal#VALUE_TOO_DEEP}, or {@code null} if it is none.
     */
    public static Refusal refusalOf(Throwable decodeFailure) {
        for (Throwable t = decodeFailure; t != null; t = t.getCause()) {
            if (t instanceof RegisteredIdsOnly.ClassNameRefused) {
                return Refusal.CLASS_NAME;
            }
            if (isTooDeep(t)) {
                return Refusal.VALUE_TOO_DEEP;
            }
        }
        return null;
    }

    /**
     * Turns a Kryo failure while reading {@code what} into a typed hop failure (caused by {@code e});
     * a refused value is reported to the node's count of refusals ({@link #refusalOf} tells which).
     */
    public HopFailure decodeFailure(RuntimeException e, String what) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RegisteredIdsOnly.ClassNameRefused) {
                refused.accept(Refusal.CLASS_NAME);
                return new HopFailure(ChainErrorCode.MALFORMED_FRAME, "cannot decode " + what + ": " + t.getMessage(), e);
            }
            if (isTooDeep(t)) {
                refused.accept(Refusal.VALUE_TOO_DEEP);
                return new HopFailure(ChainErrorCode.MALFORMED_FRAME, "cannot decode " + what + ": it is nested more "
                        + "than " + maxDepth + " levels deep (NodeBuilder.maxValueDepth of the receiving node)", e);
            }
            if (t instanceof RegisteredIdsOnly.UnknownTypeId unknown) {
                return new HopFailure(ChainErrorCode.UNREGISTERED_TYPE, ChainErrors.exceptionName(ChainErrorCode.UNREGISTERED_TYPE),
                        "cannot decode " + what + ": type id " + unknown.id() + " is not registered on this node; "
                        + "register the same types on every node with TypeRegistry" + SPRING_HINT, List.of(),
                        new FailureFields(false, null, null, unknown.id(), List.of()), e);
            }
        }
        String reason = e instanceof KryoException ? e.getMessage().lines().findFirst().orElse("") : e.toString();
        return new HopFailure(ChainErrorCode.MALFORMED_FRAME, "cannot decode " + what + ": " + reason, e);
    }
}
