package io.rpcc.core.internal.function;

import java.util.Map;
import java.util.Set;

/**
 * What sandboxed Java chaining functions may use: an allow-list of JDK and rpcc classes (anything
 * else is refused), members refused even on allowed classes, and the rule that names each refusal.
 * Class names are internal names ({@code java/lang/String}).
 */
final class SandboxRules {
    private SandboxRules() {
    }

    /** Classes allowed in full (minus {@link #DENIED_MEMBERS}). */
    static final Set<String> CLASSES = Set.of(
            "java/lang/Object", "java/lang/String", "java/lang/StringBuilder", "java/lang/CharSequence",
            "java/lang/Integer", "java/lang/Long", "java/lang/Short", "java/lang/Byte", "java/lang/Character",
            "java/lang/Boolean", "java/lang/Double", "java/lang/Float", "java/lang/Number", "java/lang/Math",
            "java/lang/StrictMath", "java/lang/Iterable", "java/lang/Comparable", "java/lang/Enum", "java/lang/Record",
            "java/lang/Void", "java/lang/AutoCloseable", "java/lang/Runnable",
            "java/lang/Throwable", "java/lang/Exception", "java/lang/RuntimeException",
            "java/lang/IllegalArgumentException", "java/lang/IllegalStateException", "java/lang/NullPointerException",
            "java/lang/ArithmeticException", "java/lang/IndexOutOfBoundsException",
            "java/lang/ArrayIndexOutOfBoundsException", "java/lang/StringIndexOutOfBoundsException",
            "java/lang/ClassCastException", "java/lang/NumberFormatException",
            "java/lang/UnsupportedOperationException", "java/lang/AssertionError", "java/lang/MatchException",
            "java/lang/CloneNotSupportedException",
            "java/util/ArrayList", "java/util/LinkedList", "java/util/HashMap", "java/util/LinkedHashMap",
            "java/util/TreeMap", "java/util/HashSet", "java/util/LinkedHashSet", "java/util/TreeSet",
            "java/util/ArrayDeque", "java/util/List", "java/util/Map", "java/util/Map$Entry", "java/util/Set",
            "java/util/Collection", "java/util/Collections", "java/util/Arrays", "java/util/Objects",
            "java/util/Optional", "java/util/OptionalInt", "java/util/OptionalLong", "java/util/OptionalDouble",
            "java/util/Iterator", "java/util/ListIterator", "java/util/Comparator", "java/util/Deque",
            "java/util/Queue", "java/util/SortedMap", "java/util/NavigableMap", "java/util/SortedSet",
            "java/util/NavigableSet", "java/util/StringJoiner", "java/util/UUID", "java/util/NoSuchElementException",
            "java/util/Locale", "java/util/SequencedCollection", "java/util/SequencedMap", "java/util/SequencedSet",
            "java/util/stream/Stream", "java/util/stream/IntStream", "java/util/stream/LongStream",
            "java/util/stream/DoubleStream", "java/util/stream/Collectors", "java/util/stream/Collector",
            "java/math/BigDecimal", "java/math/BigInteger", "java/math/RoundingMode", "java/math/MathContext",
            "java/time/Instant", "java/time/Duration", "java/time/LocalDate", "java/time/LocalDateTime",
            "java/time/LocalTime", "java/time/ZonedDateTime", "java/time/OffsetDateTime", "java/time/ZoneId",
            "java/time/ZoneOffset", "java/time/DayOfWeek", "java/time/Month", "java/time/temporal/ChronoUnit",
            "io/rpcc/core/ChainingFunction", "io/rpcc/core/ChainState", "io/rpcc/core/NextHop",
            "io/rpcc/core/NextHop$Call", "io/rpcc/core/NextHop$End", "io/rpcc/core/ChainingFunctionSource",
            "io/rpcc/core/ChainContext", "io/rpcc/core/VirtualConsole", "io/rpcc/core/StaticRoute",
            "io/rpcc/core/StaticRoute$Hop", "io/rpcc/core/ConsoleLine", "io/rpcc/core/FunctionLanguage",
            // Only a few members of these (see ONLY_MEMBERS):
            "java/lang/System", "java/lang/Class");

    /** Packages allowed in full. */
    static final Set<String> PACKAGES = Set.of("java/util/function/");

    /** For these classes, only the listed members are allowed. */
    static final Map<String, Set<String>> ONLY_MEMBERS = Map.of(
            "java/lang/System", Set.of("arraycopy", "nanoTime", "currentTimeMillis", "identityHashCode", "lineSeparator"),
            "java/lang/Class", Set.of("getName", "getSimpleName", "isInstance", "cast", "desiredAssertionStatus",
                    "isArray", "isEnum", "isRecord"));

    /** Members refused even though their class is allowed, with the rule they break. */
    static final Map<String, String> DENIED_MEMBERS = Map.ofEntries(
            Map.entry("java/lang/Object.wait", "threads"),
            Map.entry("java/lang/Object.notify", "threads"),
            Map.entry("java/lang/Object.notifyAll", "threads"),
            Map.entry("java/lang/Throwable.printStackTrace", "files"),
            Map.entry("java/lang/Throwable.setStackTrace", "reflection"),
            Map.entry("io/rpcc/core/ChainContext.wrap", "threads"),
            Map.entry("io/rpcc/core/ChainContext.executor", "threads"),
            Map.entry("io/rpcc/core/ChainContext.startThread", "threads"),
            Map.entry("io/rpcc/core/ChainContext.startVirtualThread", "threads"),
            Map.entry("java/util/Collection.parallelStream", "threads"),
            Map.entry("java/util/List.parallelStream", "threads"),
            Map.entry("java/util/Set.parallelStream", "threads"),
            Map.entry("java/util/ArrayList.parallelStream", "threads"),
            Map.entry("java/util/stream/Stream.parallel", "threads"),
            Map.entry("java/util/stream/IntStream.parallel", "threads"),
            Map.entry("java/util/stream/LongStream.parallel", "threads"),
            Map.entry("java/util/stream/DoubleStream.parallel", "threads"),
            Map.entry("java/util/Arrays.parallelSort", "threads"),
            Map.entry("java/util/Arrays.parallelSetAll", "threads"),
            Map.entry("java/util/Arrays.parallelPrefix", "threads"),
            Map.entry("java/lang/String.repeat", "memory"),
            // Regular expressions run inside the JDK, out of the budget's reach, and can backtrack for ever.
            Map.entry("java/lang/String.matches", "cpu-time"),
            Map.entry("java/lang/String.replaceAll", "cpu-time"),
            Map.entry("java/lang/String.replaceFirst", "cpu-time"),
            Map.entry("java/lang/String.split", "cpu-time"),
            Map.entry("java/util/Collections.nCopies", "memory"));

    /**
     * Calls whose last argument is a size the JDK allocates for: the instrumenter checks it against
     * the budget first. Value: bytes per element.
     */
    static final Map<String, Integer> SIZED_CALLS = Map.ofEntries(
            Map.entry("java/lang/StringBuilder.<init>(I)V", 2),
            Map.entry("java/lang/StringBuilder.ensureCapacity(I)V", 2),
            Map.entry("java/lang/StringBuilder.setLength(I)V", 2),
            Map.entry("java/util/ArrayList.<init>(I)V", 8),
            Map.entry("java/util/ArrayList.ensureCapacity(I)V", 8),
            Map.entry("java/util/HashMap.<init>(I)V", 40),
            Map.entry("java/util/LinkedHashMap.<init>(I)V", 48),
            Map.entry("java/util/HashSet.<init>(I)V", 40),
            Map.entry("java/util/LinkedHashSet.<init>(I)V", 48),
            Map.entry("java/util/ArrayDeque.<init>(I)V", 8));

    /** invokedynamic bootstraps the compiler emits for lambdas, string concatenation, records and switches. */
    static final Set<String> BOOTSTRAPS = Set.of(
            "java/lang/invoke/LambdaMetafactory", "java/lang/invoke/StringConcatFactory",
            "java/lang/runtime/ObjectMethods", "java/lang/runtime/SwitchBootstraps");

    /** Exception types a sandboxed function may not catch, so that violations cannot be swallowed. */
    static final Set<String> UNCATCHABLE = Set.of("java/lang/Throwable", "java/lang/Error",
            "java/lang/VirtualMachineError", "java/lang/StackOverflowError", "java/lang/OutOfMemoryError",
            "java/lang/LinkageError", "java/lang/ThreadDeath", "java/lang/InternalError");

    /** The rule that refusing {@code className} enforces, for the error message. */
    static String ruleFor(String className) {
        String c = className;
        if (c.startsWith("java/lang/reflect/") || c.equals("java/lang/Class") || c.equals("java/lang/Module")
                || c.equals("java/lang/StackWalker") || c.startsWith("java/lang/constant/")) {
            return "reflection";
        }
        if (c.startsWith("java/lang/invoke/")) {
            return "method-handles";
        }
        if (c.contains("ClassLoader") || c.equals("java/lang/ModuleLayer") || c.startsWith("java/lang/instrument/")) {
            return "class-loading";
        }
        if (c.startsWith("java/lang/Thread") || c.startsWith("java/util/concurrent/") || c.equals("java/util/Timer")
                || c.startsWith("java/lang/ref/") || c.equals("java/lang/ScopedValue")) {
            return "threads";
        }
        if (c.equals("java/lang/ProcessBuilder") || c.startsWith("java/lang/Process")) {
            return "processes";
        }
        if (c.equals("java/lang/Runtime") || c.equals("java/lang/Shutdown")) {
            return "processes";
        }
        if (c.equals("java/lang/System")) {
            return "environment";
        }
        if (c.startsWith("java/io/") || c.startsWith("java/nio/file/") || c.startsWith("java/nio/channels/")
                || c.startsWith("java/util/zip/") || c.startsWith("java/util/jar/") || c.startsWith("java/util/logging/")) {
            return "files";
        }
        if (c.startsWith("java/net/") || c.startsWith("javax/net/") || c.startsWith("java/net/http/")) {
            return "network";
        }
        if (c.startsWith("sun/misc/") || c.startsWith("jdk/internal/misc/")) {
            return "unsafe";
        }
        if (c.startsWith("java/lang/foreign/") || c.contains("JNI") || c.startsWith("jdk/internal/")) {
            return "native-code";
        }
        if (c.startsWith("java/security/") || c.startsWith("javax/")) {
            return "not-allowed";
        }
        if (c.startsWith("io/rpcc/") ) {
            return "rpcc-internals";
        }
        return "not-allowed";
    }

    /** The rule for a refused member of an allowed class. */
    static String ruleForMember(String owner, String name) {
        if (owner.equals("java/lang/System")) {
            return switch (name) {
                case "exit", "halt" -> "exit";
                case "getenv" -> "environment";
                case "getProperty", "getProperties", "setProperty", "setProperties", "clearProperty" -> "system-properties";
                case "load", "loadLibrary", "mapLibraryName" -> "native-code";
                case "in", "out", "err", "setIn", "setOut", "setErr", "console", "inheritedChannel" -> "files";
                case "getSecurityManager", "setSecurityManager" -> "not-allowed";
                default -> "environment";
            };
        }
        if (owner.equals("java/lang/Class")) {
            return name.equals("forName") || name.equals("getClassLoader") ? "class-loading" : "reflection";
        }
        return DENIED_MEMBERS.getOrDefault(owner + "." + name, "not-allowed");
    }
}
