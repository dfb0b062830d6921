package io.rpcc.core;

import com.esotericsoftware.kryo.Serializer;
import io.rpcc.core.spi.LoaderClassPath;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.zip.CRC32;
import org.jspecify.annotations.Nullable;

/**
 * The users' own parameter, result and state types, registered for Kryo serialization. Register
 * the same registry on every node (server and client builders take one with {@code types(...)}).
 *
 * <p>Each type gets a numeric id on the wire. By default the id is derived from the class name, so
 * nodes agree on it whatever order they register in; give an explicit id (100..999) to keep a
 * type's id stable across renames or to resolve a (reported) collision. rpcc registers common JDK
 * types itself: boxed primitives, {@code String}, arrays of primitives and strings, the
 * {@code java.util} lists, sets and maps (including {@code List.of} and friends), {@code BigDecimal},
 * {@code BigInteger}, {@code UUID} and the {@code java.time} value types. Records work out of the box.
 *
 * <pre>{@code
 * TypeRegistry types = TypeRegistry.builder()
 *     .register(Order.class)
 *     .register(Quote.class, 120)
 *     .build();
 * RpccServer.builder("pricing").types(types)...;
 * RpccClient.builder().types(types)...;
 * }</pre>
 *
 * <p>Sending a value of an unregistered class fails with {@link UnregisteredTypeException} naming
 * the class; a node never deserializes a class that it did not register.
 */
public final class TypeRegistry {
    /** Smallest explicit id users may choose. */
    public static final int MIN_EXPLICIT_ID = 100;
    /** Largest explicit id users may choose. */
    public static final int MAX_EXPLICIT_ID = 999;
    private static final int AUTO_ID_BASE = 1024;
    private static final TypeRegistry EMPTY = new TypeRegistry(List.of());

    /**
     * One registered type.
     *
     * @param type the class
     * @param id its wire id
     * @param serializer a custom Kryo serializer, or {@code null} for Kryo's default
     */
    public record Registration(Class<?> type, int id, @Nullable Serializer<?> serializer) {
    }

    private final List<Registration> registrations;

    private TypeRegistry(List<Registration> registrations) {
        this.registrations = Collections.unmodifiableList(registrations);
    }

    /** A registry with no user types. */
    public static TypeRegistry empty() {
        return EMPTY;
    }

    /** A registry of {@code types}, each with its name-derived id. */
    public static TypeRegistry of(Class<?>... types) {
        Builder b = builder();
        for (Class<?> t : types) {
            b.register(t);
        }
        return b.build();
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** The registrations, in registration order. */
    public List<Registration> registrations() {
        return registrations;
    }

    /** The class registered under {@code id}, or {@code null}. */
    public @Nullable Class<?> typeOf(int id) {
        for (Registration r : registrations) {
            if (r.id() == id) {
                return r.type();
            }
        }
        return null;
    }

    /** The id that {@link Builder#register(Class)} gives {@code type}. */
    public static int nameDerivedId(Class<?> type) {
        CRC32 crc = new CRC32();
        crc.update(type.getName().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return AUTO_ID_BASE + (int) (crc.getValue() & 0xFFFFF);
    }

    /** Builds a {@link TypeRegistry}. */
    public static final class Builder {
        private final List<Registration> registrations = new ArrayList<>();
        private final Map<Integer, Class<?>> byId = new HashMap<>();

        private Builder() {
        }

        /** Registers {@code type} with an id derived from its name. */
        public Builder register(Class<?> type) {
            return add(type, nameDerivedId(type), null);
        }

        /** Registers {@code type} with an explicit id between 100 and 999. */
        public Builder register(Class<?> type, int id) {
            checkExplicit(id);
            return add(type, id, null);
        }

        /** Registers {@code type} with a custom Kryo serializer and an id derived from its name. */
        public <T> Builder register(Class<T> type, Serializer<T> serializer) {
            return add(type, nameDerivedId(type), serializer);
        }

        /** Registers {@code type} with a custom Kryo serializer and an explicit id. */
        public <T> Builder register(Class<T> type, int id, Serializer<T> serializer) {
            checkExplicit(id);
            return add(type, id, serializer);
        }

        /**
         * Registers {@code type}, which must be annotated with {@link RpccType}, with the annotation's
         * id, or its name-derived id when the annotation gives none.
         *
         * @throws IllegalArgumentException if {@code type} is not annotated
         */
        public Builder registerAnnotated(Class<?> type) {
            RpccType annotation = type.getAnnotation(RpccType.class);
            if (annotation == null) {
                throw new IllegalArgumentException(type.getName() + " is not annotated with @" + RpccType.class.getName());
            }
            return annotation.id() == 0 ? register(type) : register(type, annotation.id());
        }

        /**
         * Registers every class annotated with {@link RpccType} in {@code packageName} and its
         * sub-packages, as {@link #registerAnnotated(Class)} does, in name order; the classes are
         * found through the context class loader of the calling thread (or this class's loader).
         */
        public Builder scan(String packageName) {
            ClassLoader context = Thread.currentThread().getContextClassLoader();
            return scan(packageName, context != null ? context : TypeRegistry.class.getClassLoader());
        }

        /** As {@link #scan(String)}, finding and loading the classes through {@code loader}. */
        public Builder scan(String packageName, ClassLoader loader) {
            Objects.requireNonNull(packageName, "packageName");
            Objects.requireNonNull(loader, "loader");
            if (packageName.isBlank()) {
                throw new IllegalArgumentException("name a package to scan, not the whole class path");
            }
            for (String name : LoaderClassPath.classNamesUnder(loader, packageName)) {
                if (name.endsWith("package-info")) {
                    continue;
                }
                Class<?> type;
                try {
                    type = Class.forName(name, false, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    continue; // a class that cannot load (a missing optional dependency) is no registered type
                }
                if (type.isAnnotationPresent(RpccType.class)) {
                    registerAnnotated(type);
                }
            }
            return this;
        }

        /** Adds every registration of {@code other}. */
        public Builder registerAll(TypeRegistry other) {
            for (Registration r : other.registrations) {
                add(r.type(), r.id(), r.serializer());
            }
            return this;
        }

        private static void checkExplicit(int id) {
            if (id < MIN_EXPLICIT_ID || id > MAX_EXPLICIT_ID) {
                throw new IllegalArgumentException("explicit type ids must be between " + MIN_EXPLICIT_ID + " and "
                        + MAX_EXPLICIT_ID + ", got " + id);
            }
        }

        private Builder add(Class<?> type, int id, Serializer<?> serializer) {
            Class<?> existing = byId.get(id);
            if (existing == type) {
                return this;
            }
            if (existing != null) {
                throw new IllegalArgumentException("type id " + id + " of " + type.getName() + " is already used by "
                        + existing.getName() + "; register one of them with an explicit id (100..999)");
            }
            for (Registration r : registrations) {
                if (r.type() == type) {
                    throw new IllegalArgumentException(type.getName() + " is already registered with id " + r.id());
                }
            }
            byId.put(id, type);
            registrations.add(new Registration(type, id, serializer));
            return this;
        }

        /** The registry. */
        public TypeRegistry build() {
            return new TypeRegistry(new ArrayList<>(registrations));
        }
    }
}
