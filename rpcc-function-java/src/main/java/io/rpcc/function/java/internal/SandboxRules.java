package io.rpcc.function.java.internal;

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
            "io/rpcc/core/NextHop$Split", "io/rpcc/core/BranchOutcome", "io/rpcc/core/BranchId",
            "io/rpcc/core/ChainException", "io/rpcc/core/SequentialChain", "io/rpcc/core/Hops",
            // Only a few members of these (see ONLY_MEMBERS):
            "java/lang/System", "java/lang/Class");

    /** Packages allowed in full. */
    static final Set<String> PACKAGES = Set.of("java/util/function/");

    /** For these classes, only the listed members are allowed. */
    static final Map<String, Set<String>> ONLY_MEMBERS = Map.of(
            "java/lang/System", Set.of("arraycopy", "nanoTime", "currentTimeMillis", "identityHashCode"),
            "java/lang/Class", Set.of("getName", "getSimpleName", "isInstance", "cast", "desiredAssertionStatus",
                    "isArray", "isEnum", "isRecord"),
            // The rpcc API a chaining function sees is this deliberate subset (rule: rpcc-api):
            "io/rpcc/core/ChainContext", Set.of("current", "chainId", "originator", "hop", "node", "console",
                    "preturn", "branch"),
            // a merge function reads its failed branches' exceptions (BranchOutcome.failure)
            "io/rpcc/core/ChainException", Set.of("host", "hop", "path", "exceptionName", "remoteMessage",
                    "getMessage", "isRetryable", "toString"),
            "io/rpcc/core/ChainingFunctionSource", Set.of("SAME", "NONE", "java", "javascript", "of", "contentId",
                    "reference", "asReference", "isReference", "repository", "language", "source", "id", "isSame",
                    "isNone", "equals", "hashCode", "toString"),
            "io/rpcc/core/VirtualConsole", Set.of("println", "printf", "equals", "hashCode", "toString"));

    /**
     * Members refused even though their class is allowed, with the rule they break. A key is
     * {@code owner.name} (every overload) or {@code owner.name(descriptor)}; it also covers the
     * member as inherited by every subtype of {@code owner}, the JDK's or the function's own.
     */
    static final Map<String, String> DENIED_MEMBERS = Map.ofEntries(
            Map.entry("java/lang/Object.wait", "threads"),
            Map.entry("java/lang/Object.notify", "threads"),
            Map.entry("java/lang/Object.notifyAll", "threads"),
            Map.entry("java/lang/Object.finalize", "finalizer"),
            Map.entry("java/lang/Throwable.printStackTrace", "files"),
            Map.entry("java/lang/Throwable.setStackTrace", "reflection"),
            // Every way to a parallel stream or the common fork-join pool:
            Map.entry("java/util/Collection.parallelStream", "threads"),
            Map.entry("java/util/stream/BaseStream.parallel", "threads"),
            Map.entry("java/util/Arrays.parallelSort", "threads"),
            Map.entry("java/util/Arrays.parallelSetAll", "threads"),
            Map.entry("java/util/Arrays.parallelPrefix", "threads"),
            // JVM-global state, shared with every service of the server:
            Map.entry("java/util/Locale.setDefault", "global-state"),
            Map.entry("java/lang/String.intern", "global-state"),
            // Host information:
            Map.entry("java/util/Locale.getDefault", "host-information"),
            Map.entry("java/time/ZoneId.systemDefault", "host-information"),
            Map.entry("java/time/LocalDate.now()Ljava/time/LocalDate;", "host-information"),
            Map.entry("java/time/LocalDateTime.now()Ljava/time/LocalDateTime;", "host-information"),
            Map.entry("java/time/LocalTime.now()Ljava/time/LocalTime;", "host-information"),
            Map.entry("java/time/ZonedDateTime.now()Ljava/time/ZonedDateTime;", "host-information"),
            Map.entry("java/time/OffsetDateTime.now()Ljava/time/OffsetDateTime;", "host-information"),
            Map.entry("java/lang/Integer.getInteger", "system-properties"),
            Map.entry("java/lang/Long.getLong", "system-properties"),
            Map.entry("java/lang/Boolean.getBoolean", "system-properties"),
            // Sizes the JDK would allocate or compute for without a check:
            Map.entry("java/math/MathContext.<init>", "memory"),
            Map.entry("java/util/Collections.nCopies", "memory"),
            // Regular expressions run inside the JDK, out of the budget's reach, and can backtrack for ever.
            Map.entry("java/lang/String.matches", "cpu-time"),
            Map.entry("java/lang/String.replaceAll", "cpu-time"),
            Map.entry("java/lang/String.replaceFirst", "cpu-time"),
            Map.entry("java/lang/String.split", "cpu-time"),
            Map.entry("java/lang/String.splitWithDelimiters", "cpu-time"));

    /**
     * JDK calls that can allocate far more than their arguments, or loop in the JDK without
     * running any instrumented code: the instrumenter calls the guard of the same name in
     * {@link Budget} instead (the receiver, if any, becomes the first argument), which checks the
     * sizes against the budget first. Key: {@code owner.name(descriptor)}.
     */
    static final Set<String> GUARDED_CALLS = Set.of(
            "java/lang/String.repeat(I)Ljava/lang/String;",
            "java/lang/String.indent(I)Ljava/lang/String;",
            "java/lang/String.format(Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/String;",
            "java/lang/String.format(Ljava/util/Locale;Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/String;",
            "java/lang/String.formatted([Ljava/lang/Object;)Ljava/lang/String;",
            "java/lang/StringBuilder.repeat(Ljava/lang/CharSequence;I)Ljava/lang/StringBuilder;",
            "java/lang/StringBuilder.repeat(II)Ljava/lang/StringBuilder;",
            "io/rpcc/core/VirtualConsole.printf(Ljava/lang/String;[Ljava/lang/Object;)V",
            "java/util/stream/IntStream.range(II)Ljava/util/stream/IntStream;",
            "java/util/stream/IntStream.rangeClosed(II)Ljava/util/stream/IntStream;",
            "java/util/stream/LongStream.range(JJ)Ljava/util/stream/LongStream;",
            "java/util/stream/LongStream.rangeClosed(JJ)Ljava/util/stream/LongStream;",
            // the JVM's one generator: a function could recover its state and predict another chain's draws
            "java/lang/Math.random()D",
            "java/lang/StrictMath.random()D");

    /**
     * Classes whose every instance call is routed through a bridge that first checks the receiver
     * and the number arguments ({@link Budget#number}) and an amplifying operation's int argument
     * ({@link Budget#amplify}): one call on a number of unusual size can run for minutes or
     * allocate gigabytes inside the JDK.
     */
    static final Set<String> NUMBER_CLASSES = Set.of("java/math/BigInteger", "java/math/BigDecimal");

    /**
     * Calls on numbers whose cost grows no faster than the numbers' size: their operands may have
     * up to {@link Budget#MAX_NUMBER_BITS} bits. Every other call on a number (multiplication,
     * division, roots, conversions to text, rounding with a {@code MathContext}...) costs more than
     * linear time: its operands get the tighter bound of {@link #NUMBER_OPERATION_BITS}, by default
     * {@link Budget#OPERATION_BITS}.
     */
    static final Map<String, Set<String>> LINEAR_NUMBER_OPERATIONS = Map.of(
            "java/math/BigInteger", Set.of("add", "subtract", "negate", "abs", "signum", "compareTo", "equals",
                    "hashCode", "bitLength", "bitCount", "testBit", "getLowestSetBit", "and", "or", "xor", "not",
                    "andNot", "setBit", "clearBit", "flipBit", "shiftLeft", "shiftRight", "intValue", "longValue",
                    "shortValue", "byteValue", "intValueExact", "longValueExact", "shortValueExact", "byteValueExact",
                    "floatValue", "doubleValue", "min", "max", "toByteArray"),
            "java/math/BigDecimal", Set.of("signum", "scale", "unscaledValue", "negate", "abs", "plus", "equals",
                    "hashCode", "ulp", "movePointLeft", "movePointRight", "scaleByPowerOfTen"));

    /** The largest operands (bits) of the calls on numbers that cost the most per bit. */
    static final Map<String, Long> NUMBER_OPERATION_BITS = Map.of(
            "modPow", Budget.MODULAR_BITS, "modInverse", Budget.MODULAR_BITS, "isProbablePrime", Budget.MODULAR_BITS,
            "nextProbablePrime", Budget.PRIME_SEARCH_BITS, "gcd", Budget.GCD_BITS);

    /**
     * Constructors of numbers from text or bytes, or rounding a number: the instrumenter checks the
     * text's length (or the bytes' count, or the number to round) first, with the {@link Budget}
     * method named. Key: {@code owner.<init>(descriptor)}. The checked argument is the last one, or
     * the one before it if the last is an {@code int} radix or a {@code MathContext}, or the first of
     * {@code (BigInteger, int, MathContext)}.
     */
    static final Map<String, String> NUMBER_CONSTRUCTOR_CHECKS = Map.ofEntries(
            Map.entry("java/math/BigInteger.<init>(Ljava/lang/String;)V", "numberText(Ljava/lang/String;)V"),
            Map.entry("java/math/BigInteger.<init>(Ljava/lang/String;I)V", "numberText(Ljava/lang/String;)V"),
            Map.entry("java/math/BigInteger.<init>([B)V", "numberBytes([B)V"),
            Map.entry("java/math/BigInteger.<init>(I[B)V", "numberBytes([B)V"),
            Map.entry("java/math/BigInteger.<init>([BII)V", "numberByteCount(I)V"),
            Map.entry("java/math/BigInteger.<init>(I[BII)V", "numberByteCount(I)V"),
            Map.entry("java/math/BigDecimal.<init>(Ljava/lang/String;)V", "numberText(Ljava/lang/String;)V"),
            Map.entry("java/math/BigDecimal.<init>(Ljava/lang/String;Ljava/math/MathContext;)V",
                    "numberText(Ljava/lang/String;)V"),
            Map.entry("java/math/BigDecimal.<init>([C)V", "numberChars([C)V"),
            Map.entry("java/math/BigDecimal.<init>([CLjava/math/MathContext;)V", "numberChars([C)V"),
            Map.entry("java/math/BigDecimal.<init>([CII)V", "numberCharCount(I)V"),
            Map.entry("java/math/BigDecimal.<init>([CIILjava/math/MathContext;)V", "numberCharCount(I)V"),
            Map.entry("java/math/BigDecimal.<init>(Ljava/math/BigInteger;Ljava/math/MathContext;)V",
                    "numberRounded(Ljava/lang/Object;)V"),
            Map.entry("java/math/BigDecimal.<init>(Ljava/math/BigInteger;ILjava/math/MathContext;)V",
                    "numberRounded(Ljava/lang/Object;)V"));

    /**
     * Types a static final field may have: values that cannot change and hold nothing that can
     * (not {@code ChainState}, whose values may be mutable collections).
     */
    static final Set<String> IMMUTABLE = Set.of(
            "java/lang/String", "java/lang/Integer", "java/lang/Long", "java/lang/Short", "java/lang/Byte",
            "java/lang/Character", "java/lang/Boolean", "java/lang/Double", "java/lang/Float",
            "java/math/BigInteger", "java/math/BigDecimal", "java/math/RoundingMode", "java/math/MathContext",
            "java/time/Instant", "java/time/Duration", "java/time/LocalDate", "java/time/LocalDateTime",
            "java/time/LocalTime", "java/time/ZonedDateTime", "java/time/OffsetDateTime", "java/time/ZoneId",
            "java/time/ZoneOffset", "java/time/DayOfWeek", "java/time/Month", "java/time/temporal/ChronoUnit",
            "java/util/UUID", "java/util/Locale", "io/rpcc/core/ChainingFunctionSource",
            "io/rpcc/core/FunctionLanguage");

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
            Map.entry("java/util/ArrayDeque.<init>(I)V", 8),
            Map.entry("java/util/Arrays.copyOf([ZI)[Z", 1), Map.entry("java/util/Arrays.copyOf([BI)[B", 1),
            Map.entry("java/util/Arrays.copyOf([CI)[C", 2), Map.entry("java/util/Arrays.copyOf([SI)[S", 2),
            Map.entry("java/util/Arrays.copyOf([II)[I", 4), Map.entry("java/util/Arrays.copyOf([FI)[F", 4),
            Map.entry("java/util/Arrays.copyOf([JI)[J", 8), Map.entry("java/util/Arrays.copyOf([DI)[D", 8),
            Map.entry("java/util/Arrays.copyOf([Ljava/lang/Object;I)[Ljava/lang/Object;", 8),
            Map.entry("java/util/Arrays.copyOfRange([ZII)[Z", 1), Map.entry("java/util/Arrays.copyOfRange([BII)[B", 1),
            Map.entry("java/util/Arrays.copyOfRange([CII)[C", 2), Map.entry("java/util/Arrays.copyOfRange([SII)[S", 2),
            Map.entry("java/util/Arrays.copyOfRange([III)[I", 4), Map.entry("java/util/Arrays.copyOfRange([FII)[F", 4),
            Map.entry("java/util/Arrays.copyOfRange([JII)[J", 8), Map.entry("java/util/Arrays.copyOfRange([DII)[D", 8),
            Map.entry("java/util/Arrays.copyOfRange([Ljava/lang/Object;II)[Ljava/lang/Object;", 8));

    /** invokedynamic bootstraps the compiler emits for lambdas, string concatenation, records and switches. */
    static final Set<String> BOOTSTRAPS = Set.of(
            "java/lang/invoke/LambdaMetafactory", "java/lang/invoke/StringConcatFactory",
            "java/lang/runtime/ObjectMethods", "java/lang/runtime/SwitchBootstraps");

    /** Exception types a sandboxed function may not catch, so that violations cannot be swallowed. */
    static final Set<String> UNCATCHABLE = Set.of("java/lang/Throwable", "java/lang/Error",
            "java/lang/VirtualMachineError", "java/lang/StackOverflowError", "java/lang/OutOfMemoryError",
            "java/lang/LinkageError", "java/lang/ThreadDeath", "java/lang/InternalError");

    /**
     * Why member {@code name} of {@code owner} is refused in a sequential chain (rule
     * {@code nondeterminism}), or {@code null}: it would give another value when the chain is
     * replayed at the next hop (clocks, random numbers, identity hashes), or differ between hops
     * ({@code ChainContext}'s hop, node, branch; its console and partial replies would repeat at
     * every replay: {@code Hops} has ones that do not).
     */
    static String nondeterministic(String owner, String name) {
        return switch (owner) {
            case "java/lang/System" -> switch (name) {
                case "nanoTime", "currentTimeMillis" -> "read the time in a service function and pass it on as a result";
                case "identityHashCode" -> "identity hashes differ from one run to the next";
                default -> null;
            };
            case "java/lang/Math", "java/lang/StrictMath" -> name.equals("random")
                    ? "draw random numbers in a service function, or from the input" : null;
            case "java/util/UUID" -> name.equals("randomUUID")
                    ? "make the UUID in a service function, or derive it from the input" : null;
            case "io/rpcc/core/ChainContext" -> switch (name) {
                case "hop", "node", "branch" -> "they differ from one hop to the next";
                case "console" -> "use hops.console(), which prints each line once";
                case "preturn" -> "use hops.preturn(value), which replies once";
                default -> null;
            };
            default -> owner.startsWith("java/time/") && name.equals("now")
                    ? "read the time in a service function and pass it on as a result" : null;
        };
    }

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
        if (c.equals("java/util/TimeZone")) {
            return "host-information";
        }
        if (c.equals("java/security/Security") || c.equals("java/util/logging/LogManager")) {
            return "global-state";
        }
        if (c.startsWith("java/lang/Thread") || c.startsWith("java/util/concurrent/") || c.equals("java/util/Timer")
                || c.equals("java/util/stream/StreamSupport") || c.equals("java/util/stream/BaseStream") || c.startsWith("java/util/Spliterator")
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
                case "lineSeparator" -> "host-information";
                case "getSecurityManager", "setSecurityManager" -> "not-allowed";
                default -> "environment";
            };
        }
        if (owner.equals("java/lang/Class")) {
            return name.equals("forName") || name.equals("getClassLoader") ? "class-loading"
                    : name.startsWith("getResource") ? "class-path-resources" : "reflection";
        }
        if (owner.startsWith("io/rpcc/")) {
            return switch (name) {
                case "wrap", "executor", "startThread", "startVirtualThread", "track" -> "threads";
                case "javaResource", "javascriptResource" -> "class-path-resources";
                default -> "rpcc-api";
            };
        }
        return "not-allowed";
    }
}
