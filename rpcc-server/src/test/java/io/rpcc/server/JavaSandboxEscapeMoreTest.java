package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Refusal;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.testing.HostResources;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * More Java chaining functions that try to leave the sandbox or harm the host (issue 10): code run
 * after the budget is lifted, parallel streams by every road, JVM-global state and host information,
 * the rpcc API beyond its subset, static state that outlives an invocation, single JDK calls that
 * allocate a lot or never return, and floods of new functions. Each attempt must end its chain with
 * a typed error naming the rule, the hop and the host, and the server must answer the next chain.
 */
class JavaSandboxEscapeMoreTest {
    static Cluster cluster;
    static RpccServer guard;
    /** A node with a tiny wall-time limit, where one long JDK call surely overruns it. */
    static RpccServer hasty;
    static RpccClient client;

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        guard = cluster.server("guard", b -> b
                .sandbox(new SandboxLimits(Duration.ofMillis(200), 16L << 20, Duration.ofMillis(400)))
                .maxFunctionSourceChars(32 * 1024)
                .maxQueuedCompiles(4)
                .service("echo", p -> p));
        hasty = cluster.server("hasty", b -> b
                .sandbox(new SandboxLimits(Duration.ofSeconds(10), 256L << 20, Duration.ofMillis(50)))
                .service("echo", p -> p));
        client = cluster.client(b -> b.timeout(Duration.ofSeconds(30)));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @AfterEach
    void serverStillServes() {
        assertEquals("x0,x1,x2", client.runChain("guard", "echo", "x", FINE, ChainState.empty()).value());
    }

    static final ChainingFunctionSource FINE = ChainingFunctionSource.java("""
            import io.rpcc.core.*;
            import java.util.*;
            public class Fine implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    List<String> parts = new ArrayList<>();
                    for (int i = 0; i < 3; i++) parts.add(result + "" + i);
                    return NextHop.end(String.join(",", parts));
                }
            }
            """);

    /** Either time limit: which one a spinning function hits first depends on how busy the machine is. */
    static final String TIME = "cpu-time|wall-time";

    static ChainingFunctionSource attempt(String body, String extra) {
        return JavaSandboxEscapeTest.attempt(body, extra);
    }

    static Stream<Arguments> attempts() {
        return Stream.of(
                // user code after the budget: exception overrides run inside it, finalizers are refused
                Arguments.of("getMessage override spins", "if (result != null) throw new Loud();",
                        "static class Loud extends RuntimeException { public String getMessage() { long n = 0; while (n >= 0) n++; return null; } }",
                        TIME),
                Arguments.of("getMessage override allocates", "if (result != null) throw new Loud();",
                        "static class Loud extends RuntimeException { public String getMessage() { List<byte[]> k = new ArrayList<>(); while (k != null) k.add(new byte[8192]); return null; } }",
                        "memory"),
                Arguments.of("finalize", "new F();", "static class F { protected void finalize() { } }", "finalizer"),
                // parallel streams by every road
                Arguments.of("HashSet.parallelStream", "new HashSet<>(List.of(1, 2)).parallelStream().count();", "", "threads"),
                Arguments.of("ArrayDeque.parallelStream", "new ArrayDeque<>(List.of(1)).parallelStream().count();", "", "threads"),
                Arguments.of("IntStream.parallel", "java.util.stream.IntStream.range(0, 10).parallel().sum();", "", "threads"),
                Arguments.of("own List subclass", "new L().parallelStream().count();",
                        "static class L extends ArrayList<Integer> { }", "threads"),
                Arguments.of("Stream::parallel reference",
                        "java.util.function.UnaryOperator<java.util.stream.Stream<Integer>> p = java.util.stream.Stream::parallel;", "", "threads"),
                Arguments.of("StreamSupport", "java.util.stream.StreamSupport.stream(List.of(1).spliterator(), true).count();", "", "threads"),
                Arguments.of("ForkJoinPool", "java.util.concurrent.ForkJoinPool.commonPool();", "", "threads"),
                Arguments.of("CompletableFuture.supplyAsync", "java.util.concurrent.CompletableFuture.supplyAsync(() -> 1);", "", "threads"),
                Arguments.of("Arrays.parallelSort", "Arrays.parallelSort(new int[4]);", "", "threads"),
                Arguments.of("synchronized on a shared object", "synchronized (String.class) { result.hashCode(); }", "", "threads"),
                Arguments.of("synchronized method", "new S().s();", "static class S { synchronized void s() { } }", "threads"),
                Arguments.of("static synchronized method locking the shared class", "S.s();",
                        "static class S { static synchronized void s() { } }", "threads"),
                Arguments.of("wait inherited by an own class", "new W().w();",
                        "static class W { void w() throws Exception { wait(1); } }", "threads"),
                // JVM-global state and host information
                Arguments.of("Locale.setDefault", "Locale.setDefault(Locale.GERMANY);", "", "global-state"),
                Arguments.of("String.intern", "(result + \"-\").intern();", "", "global-state"),
                Arguments.of("Locale.getDefault", "Locale.getDefault();", "", "host-information"),
                Arguments.of("ZoneId.systemDefault", "java.time.ZoneId.systemDefault();", "", "host-information"),
                Arguments.of("LocalDateTime.now()", "java.time.LocalDateTime.now();", "", "host-information"),
                Arguments.of("TimeZone.getDefault", "java.util.TimeZone.getDefault();", "", "host-information"),
                Arguments.of("System.lineSeparator", "System.lineSeparator();", "", "host-information"),
                Arguments.of("Integer.getInteger", "Integer.getInteger(\"user.home\");", "", "system-properties"),
                Arguments.of("Security.setProperty", "java.security.Security.setProperty(\"x\", \"y\");", "", "global-state"),
                Arguments.of("printStackTrace of an own exception", "new X().printStackTrace();",
                        "static class X extends RuntimeException { }", "files"),
                // the rpcc API is a subset
                Arguments.of("ChainingFunctionSource.javaResource",
                        "ChainingFunctionSource.javaResource(Attempt.class, \"/secret.properties\");", "", "class-path-resources"),
                Arguments.of("Class.getResourceAsStream", "Attempt.class.getResourceAsStream(\"/secret.properties\");", "",
                        "class-path-resources"),
                Arguments.of("new VirtualConsole", "new VirtualConsole(1, \"h\", \"s\", new ArrayList<>());", "", "rpcc-api"),
                // static state that outlives an invocation
                Arguments.of("static final mutable list", "KEEP.add(new byte[1024]);",
                        "static final List<byte[]> KEEP = new ArrayList<>();", "static-state"),
                Arguments.of("non-final static counter", "calls++;", "static int calls;", "static-state"),
                Arguments.of("static final array", "CELLS[0]++;", "static final int[] CELLS = new int[1];", "static-state"),
                Arguments.of("mutable enum field", "E.A.n++;", "enum E { A; int n; }", "static-state"),
                Arguments.of("static final ChainState holding a mutable list",
                        "((List<byte[]>) KEEP.get(\"k\")).add(new byte[1 << 20]);",
                        "static final ChainState KEEP = ChainState.of(\"k\", new ArrayList<byte[]>());", "static-state"),
                // single JDK calls that allocate a lot, or loop in the JDK
                Arguments.of("StringBuilder.repeat", "new StringBuilder().repeat(\"x\", 1 << 30);", "", "memory"),
                Arguments.of("format width", "String.format(\"%900000000d\", 1);", "", "memory"),
                Arguments.of("formatted width", "\"%.900000000f\".formatted(1.0);", "", "memory"),
                Arguments.of("console printf width", "ChainContext.current().console().printf(\"%800000000s\", \"x\");", "", "memory"),
                Arguments.of("String.indent", "\"a\\nb\".indent(1 << 29);", "", "memory"),
                Arguments.of("Arrays.copyOf", "Arrays.copyOf(new long[1], 1 << 28);", "", "memory"),
                Arguments.of("BigInteger.shiftLeft", "java.math.BigInteger.ONE.shiftLeft(Integer.MAX_VALUE - 1);", "", "memory"),
                Arguments.of("BigInteger.pow", "java.math.BigInteger.TEN.pow(400_000_000);", "", "memory"),
                Arguments.of("BigDecimal.toPlainString", "new java.math.BigDecimal(\"1e999999999\").toPlainString();", "", "memory"),
                Arguments.of("BigDecimal.setScale", "java.math.BigDecimal.ONE.setScale(900_000_000);", "", "memory"),
                Arguments.of("BigDecimal via method reference",
                        "List.of(new java.math.BigDecimal(\"1e999999999\")).forEach(java.math.BigDecimal::toPlainString);", "", "memory"),
                Arguments.of("MathContext precision", "new java.math.MathContext(1_000_000_000);", "", "memory"),
                Arguments.of("range boxed to a list", "java.util.stream.IntStream.range(0, Integer.MAX_VALUE).boxed().toList();", "",
                        "memory|" + TIME), // (on a loaded machine the wall time can run out before the memory)
                Arguments.of("iterate a JDK method reference",
                        "java.util.stream.Stream.iterate(1L, Math::incrementExact).limit(Long.MAX_VALUE).toList();", "", "memory|" + TIME),
                Arguments.of("regex splitWithDelimiters", "\"a,b\".splitWithDelimiters(\",\", 0);", "", "cpu-time"),
                // what the function returns must not be its own code
                Arguments.of("own record as the result", "if (result != null) return NextHop.end(List.of(new Secret(\"x\")));",
                        "record Secret(String s) { }", "output-type"),
                Arguments.of("own lambda in the state", "if (result != null) return NextHop.call(\"guard\", \"echo\", 1, "
                        + "ChainState.empty().with(\"f\", (java.util.function.Supplier<String>) () -> \"x\"));", "", "output-type"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("attempts")
    void everyEscapeIsDenied(String name, String body, String extra, String rule) {
        assertViolation(name, attempt(body, extra), rule);
    }

    /** A number of about {@code bits} bits, built with linear-time calls only. */
    static String big(int bits) {
        return "java.math.BigInteger.ONE.shiftLeft(" + bits + ").subtract(java.math.BigInteger.valueOf(12345))";
    }

    /**
     * Calls on numbers whose cost grows faster than the numbers, and number parsing: refused before
     * the JDK runs them (so quickly, at any load), by the sandbox's bound of the operation.
     */
    static Stream<Arguments> expensiveNumbers() {
        String bi = "java.math.BigInteger";
        String bd = "java.math.BigDecimal";
        return Stream.of(
                Arguments.of("modPow of 8 Kbit", big(8192) + ".modPow(" + big(8191) + ", " + big(8192) + ".add(" + bi + ".TWO));", ""),
                Arguments.of("modInverse of 1 Mbit", bi + ".valueOf(3).modInverse(" + big(1 << 20) + ");", ""),
                Arguments.of("isProbablePrime of 1 Mbit", big(1 << 20) + ".isProbablePrime(50);", ""),
                Arguments.of("nextProbablePrime of 2 Kbit", big(2048) + ".nextProbablePrime();", ""),
                Arguments.of("sqrt of 2 Mbit", big(2_000_000) + ".sqrt();", ""),
                Arguments.of("gcd of 1 Mbit", big(1 << 20) + ".gcd(" + big(1 << 20) + ".subtract(" + bi + ".TEN));", ""),
                Arguments.of("toString of 2 Mbit", big(2_000_000) + ".toString();", ""),
                Arguments.of("toString(radix) of 2 Mbit", big(2_000_000) + ".toString(7);", ""),
                Arguments.of("multiply of 1 Mbit", big(1 << 20) + ".multiply(" + big(1 << 20) + ");", ""),
                Arguments.of("divide of 2 Mbit", big(2_000_000) + ".divide(" + big(1 << 20) + ");", ""),
                Arguments.of("pow to 1.5 Mbit", bi + ".valueOf(3).pow(1_000_000);", ""),
                Arguments.of("BigDecimal toPlainString of 2 Mbit", "new " + bd + "(" + big(2_000_000) + ").toPlainString();", ""),
                Arguments.of("BigDecimal stripTrailingZeros", "new " + bd + "(" + big(2_000_000) + ").stripTrailingZeros();", ""),
                Arguments.of("BigDecimal rounded at construction", "new " + bd + "(" + big(2_000_000)
                        + ", java.math.MathContext.DECIMAL32);", ""),
                Arguments.of("BigDecimal rounded with a scale at construction", "new " + bd + "(" + big(2_000_000)
                        + ", 3, java.math.MathContext.DECIMAL64);", ""),
                Arguments.of("new BigInteger(String)", "new " + bi + "(\"9\".repeat(1_000_000));", ""),
                Arguments.of("new BigInteger(String, radix)", "new " + bi + "(\"7\".repeat(1_000_000), 8);", ""),
                Arguments.of("new BigDecimal(String)", "new " + bd + "(\"9\".repeat(1_000_000));", ""),
                Arguments.of("new BigDecimal(String, MathContext)", "new " + bd + "(\"9\".repeat(1_000_000), "
                        + "java.math.MathContext.DECIMAL32);", ""),
                Arguments.of("new BigDecimal(char[])", "new " + bd + "(\"9\".repeat(1_000_000).toCharArray());", ""),
                Arguments.of("new BigDecimal(char[], offset, length, MathContext)", "new " + bd
                        + "(\"9\".repeat(1_000_000).toCharArray(), 0, 1_000_000, java.math.MathContext.DECIMAL32);", ""),
                Arguments.of("BigInteger::new reference", "java.util.function.Function<String, " + bi + "> f = " + bi
                        + "::new; f.apply(\"9\".repeat(1_000_000));", ""),
                Arguments.of("BigInteger::modPow reference", "java.util.function.BiFunction<" + bi + ", " + bi + ", " + bi
                        + "> f = " + big(8192) + "::modPow; f.apply(" + big(8192) + ", " + big(8192) + ".add(" + bi + ".TWO));", ""),
                Arguments.of("own subclass of BigInteger", "new Big().modPow(" + big(8192) + ", " + big(8192) + ");",
                        "static class Big extends java.math.BigInteger { Big() { super(\"3\"); } }"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("expensiveNumbers")
    void expensiveCallsOnNumbersAreRefusedBeforeTheyRun(String name, String body, String extra) {
        SandboxViolationException v = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertViolation(name, attempt(body, extra), "cpu-time"));
        assertTrue(v.getMessage().contains("sandbox's bound") || v.getMessage().contains("subclass of java.math"),
                () -> name + ": refused by the bound, not by the CPU limit: " + v.getMessage());
    }

    @Test
    void aBigIntegerOfTooManyBytesIsRefused() {
        SandboxViolationException v = assertViolation("new BigInteger(byte[])",
                attempt("new java.math.BigInteger(new byte[1 << 20]);", ""), "memory");
        assertTrue(v.getMessage().contains("bytes, over the sandbox's bound"), v.getMessage());
    }

    @Test
    void numbersWithinTheBoundsStillWork() {
        ChainingFunctionSource cf = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                import java.math.*;
                public class Numbers implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        BigInteger p = new BigInteger("170141183460469231731687303715884105727"); // 2^127 - 1
                        BigInteger m = BigInteger.ONE.shiftLeft(2048).subtract(BigInteger.valueOf(159));
                        String s = p.isProbablePrime(40) + "," + BigInteger.valueOf(3).modPow(p, m).bitLength() / 100
                                + "," + new BigDecimal("1234.5600").stripTrailingZeros().toPlainString()
                                + "," + BigInteger.TEN.pow(1000).sqrt().toString().length()
                                + "," + new BigInteger("ff", 16).gcd(BigInteger.valueOf(85))
                                + "," + BigInteger.valueOf(100).nextProbablePrime();
                        return NextHop.end(s);
                    }
                }
                """);
        assertEquals("true,20,1234.56,501,85,101", client.runChain("guard", "echo", "x", cf, ChainState.empty()).value());
    }

    /**
     * Compiles a few functions at once, so that the compiler pool's threads and warm file managers
     * (reused, not leaked) exist before a resource baseline is taken.
     */
    static void warmUp() {
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 4; i++) {
                ChainingFunctionSource cf = attempt("long warm" + i + " = " + System.nanoTime() + "L;", "");
                pool.submit(() -> client.runChain("guard", "echo", "x", cf, ChainState.empty()));
            }
        }
        for (int i = 0; i < 3; i++) {
            client.runChain("guard", "echo", "x", FINE, ChainState.empty());
        }
    }

    static SandboxViolationException assertViolation(String name, ChainingFunctionSource cf, String rule) {
        long before = guard.stats().refused(Refusal.SANDBOX_VIOLATION);
        ChainException e = assertThrows(ChainException.class, () -> client.runChain(
                ChainCall.to("guard", "echo").params("x").chainingFunction(cf)));
        SandboxViolationException v = assertInstanceOf(SandboxViolationException.class, e, () -> name + ": " + e);
        assertTrue(v.rule().matches(rule), () -> name + ": expected rule " + rule + ": " + v.getMessage());
        assertEquals("guard", v.host());
        assertEquals(1, v.hop());
        assertEquals(List.of("guard"), v.path());
        assertTrue(guard.stats().refused(Refusal.SANDBOX_VIOLATION) > before, "counted in the node's refusals");
        return v;
    }

    /** One attack of each class, with the JVM's threads, file descriptors and heap checked after it. */
    @Test
    void resourcesReturnAfterEachClassOfAttack() {
        List<String[]> representatives = List.of(
                new String[] {"if (result != null) throw new Loud();",
                        "static class Loud extends RuntimeException { public String getMessage() { long n = 0; while (n >= 0) n++; return null; } }",
                        TIME},
                new String[] {"new HashSet<>(List.of(1, 2)).parallelStream().count();", "", "threads"},
                new String[] {"Locale.setDefault(Locale.GERMANY);", "", "global-state"},
                new String[] {"ChainingFunctionSource.javaResource(Attempt.class, \"/x\");", "", "class-path-resources"},
                new String[] {"KEEP.add(new byte[1024]);", "static final List<byte[]> KEEP = new ArrayList<>();", "static-state"},
                new String[] {"String.format(\"%900000000d\", 1);", "", "memory"},
                new String[] {"if (result != null) return NextHop.end(new Secret(\"x\"));", "record Secret(String s) { }",
                        "output-type"});
        warmUp();
        for (String[] r : representatives) {
            HostResources baseline = HostResources.now();
            assertViolation(r[2], attempt(r[0] + " // resources", r[1]), r[2]);
            serverStillServes();
            HostResources.assertBackTo(baseline, 6, 4, 16L << 20);
        }
    }

    @Test
    void anExceptionsToStringIsNeverCalledOutsideTheBudget() {
        ChainingFunctionSource cf = attempt("if (result != null) throw new Quiet();", """
                static class Quiet extends RuntimeException {
                    public String toString() { long n = 0; while (n >= 0) n++; return "never"; }
                    public String getLocalizedMessage() { long n = 0; while (n >= 0) n++; return "never"; }
                    public String getMessage() { return "described inside the budget"; }
                }
                """);
        ChainException e = assertThrows(ChainException.class, () -> client.runChain(
                ChainCall.to("guard", "echo").params("x").chainingFunction(cf)));
        ChainingFunctionException f = assertInstanceOf(ChainingFunctionException.class, e);
        assertTrue(f.exceptionName().endsWith("Attempt$Quiet"), f.exceptionName());
        assertEquals("described inside the budget", f.remoteMessage());
        assertEquals("guard", f.host());
    }

    /** A message of millions of chars is cut where it is taken, inside the budget: the ERROR frame stays small. */
    @Test
    void aHugeExceptionMessageIsBounded() {
        ChainingFunctionSource cf = attempt("if (result != null) throw new IllegalStateException(\"x\".repeat(5_000_000));", "");
        ChainException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(ChainException.class,
                () -> client.runChain(ChainCall.to("guard", "echo").params("x").chainingFunction(cf))));
        ChainingFunctionException f = assertInstanceOf(ChainingFunctionException.class, e);
        assertEquals("java.lang.IllegalStateException", f.exceptionName());
        assertTrue(f.remoteMessage().length() < FunctionRuntime.MAX_MESSAGE_CHARS + 100,
                "bounded: " + f.remoteMessage().length() + " chars");
        assertTrue(f.remoteMessage().startsWith("xxxx") && f.remoteMessage().endsWith("(5000000 chars in all)"),
                f.remoteMessage().substring(Math.max(0, f.remoteMessage().length() - 60)));
        assertEquals("guard", f.host());
    }

    /** Only the specifiers' widths and precisions are bounded: numbers in the text, and argument indexes, are not. */
    @Test
    void formatsWithLargeNumbersInTheirTextWork() {
        ChainingFunctionSource cf = attempt("""
                if (result != null) return NextHop.end(String.format("order 1234567: %s %5d%%", result, 42)
                        + "|" + "%2$s-%1$s, ticket 99999999".formatted("a", "b") + "|" + String.format("%.3f", 1.0));
                """, "");
        assertEquals("order 1234567: x    42%|b-a, ticket 99999999|1.000",
                client.runChain("guard", "echo", "x", cf, ChainState.empty()).value());
        assertViolation("width after literal digits", attempt("String.format(\"order 1234567: %0900000000d\", 1);", ""),
                "memory");
    }

    /** Nulls inside what a function returns (result, state values) are ordinary values, not violations. */
    @Test
    void nullsInsideOutputsAreAllowed() {
        ChainingFunctionSource cf = attempt("""
                if (result != null) {
                    Map<String, Object> m = new HashMap<>();
                    m.put("k", null);
                    return NextHop.end(new ArrayList<>(Arrays.asList("a", null, m, new Object[] {null})));
                }
                """, "");
        List<?> value = (List<?>) client.runChain("guard", "echo", "x", cf, ChainState.of("empty", null)).value();
        assertEquals(4, value.size());
        assertNull(value.get(1));
    }

    @Test
    void ordinaryCodeWithGuardedCallsStillWorks() {
        ChainingFunctionSource cf = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                import java.util.*;
                import java.util.stream.*;
                import java.math.*;
                public class Guarded implements ChainingFunction {
                    static final int LIMIT = 3;
                    static final String NAME = "g";
                    enum Kind { A, B }
                    public NextHop apply(ChainState state, Object result) {
                        String line = "-".repeat(LIMIT) + String.format("%5.2f", 1.5) + "%d".formatted(7);
                        BigDecimal price = new BigDecimal("19.99").setScale(1, RoundingMode.HALF_UP).multiply(BigDecimal.TEN);
                        BigInteger big = BigInteger.TWO.pow(100).shiftLeft(3);
                        List<String> names = Stream.of("b", "a").map(String::toUpperCase).sorted().toList();
                        int sum = IntStream.rangeClosed(1, 10).sum();
                        ChainContext.current().console().printf("%s %d", NAME, sum);
                        return NextHop.end(line + "|" + price.toPlainString() + "|" + big.bitLength() + "|" + names
                                + "|" + sum + "|" + Kind.B + "|" + Arrays.toString(Arrays.copyOf(new int[] {1}, 2)));
                    }
                }
                """);
        assertEquals("--- 1.507|200.0|104|[A, B]|55|B|[1, 0]",
                client.runChain("guard", "echo", "x", cf, ChainState.empty()).value());
    }

    /**
     * A function stuck in one long JDK call (the text of four numbers of two million bits, reached
     * through {@code Objects.toString}, so no bound on numbers applies) on a node whose wall-time
     * limit is 50 ms is abandoned at that limit: the chain fails with {@code wall-time} at once, the
     * node answers other chains meanwhile, and the thread is counted (by that node, not by others in
     * the JVM) until its call ends.
     */
    @Test
    void aFunctionStuckInOneJdkCallFailsAtTheWallTimeLimit() throws Exception {
        warmUp();
        HostResources baseline = HostResources.now();
        ChainingFunctionSource stuck = attempt("""
                java.math.BigInteger n = java.math.BigInteger.ONE.shiftLeft(2_000_000).subtract(java.math.BigInteger.TEN);
                Objects.toString(List.of(n, n.add(java.math.BigInteger.ONE), n.subtract(java.math.BigInteger.ONE), n.negate()));
                """, "");
        ChainingFunctionSource fine = attempt("if (result == null) throw new IllegalStateException();", "");
        assertEquals("escaped", client.runChain("hasty", "echo", "x", fine, ChainState.empty()).value()); // warm
        long before = hasty.stats().refused(Refusal.SANDBOX_VIOLATION);
        // the abandoned thread's count is sampled all along: on a loaded machine its JDK call may end before
        // the chain's failure is looked at
        long drained = System.nanoTime() + TimeUnit.SECONDS.toNanos(120); // (none left by an earlier test)
        while (hasty.stats().abandonedSandboxThreads() > 0 && System.nanoTime() < drained) {
            Thread.sleep(100);
        }
        assertEquals(0, hasty.stats().abandonedSandboxThreads(), "no abandoned thread before this test");
        AtomicInteger countedHere = new AtomicInteger();
        AtomicInteger countedElsewhere = new AtomicInteger();
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                countedHere.accumulateAndGet(hasty.stats().abandonedSandboxThreads(), Math::max);
                countedElsewhere.accumulateAndGet(guard.stats().abandonedSandboxThreads(), Math::max);
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        long start = System.nanoTime();
        CompletableFuture<Object> chain = CompletableFuture.supplyAsync(() -> client.runChain(
                ChainCall.to("hasty", "echo").params("x").chainingFunction(stuck)).value());
        ExecutionExceptionHolder failure = new ExecutionExceptionHolder();
        // meanwhile the nodes answer other chains
        for (int i = 0; i < 3; i++) {
            serverStillServes();
            assertEquals("escaped", client.runChain("hasty", "echo", "x", fine, ChainState.empty()).value());
        }
        try {
            chain.get(20, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            failure.cause = e.getCause();
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        SandboxViolationException v = assertInstanceOf(SandboxViolationException.class, failure.cause);
        assertEquals("wall-time", v.rule(), v.getMessage());
        // its thread still runs the JDK call (some 100s of ms more), abandoned and counted
        sampler.interrupt();
        sampler.join();
        assertTrue(countedHere.get() > 0, "the stuck thread is counted");
        assertEquals(0, countedElsewhere.get(), "by its own node only (the cap is per node)");
        assertEquals("hasty", v.host());
        assertTrue(hasty.stats().refused(Refusal.SANDBOX_VIOLATION) > before, "counted in the node's refusals");
        assertTrue(tookMs < 10_000, "failed at the limit (plus compiling), not when the JDK call ended: " + tookMs + " ms");
        // the abandoned thread is accounted for until its call ends; then everything is back
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (hasty.stats().abandonedSandboxThreads() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(0, hasty.stats().abandonedSandboxThreads());
        serverStillServes();
        HostResources.assertBackTo(baseline, 6, 4, 16L << 20);
    }

    private static final class ExecutionExceptionHolder {
        Throwable cause;
    }

    @Test
    void anOversizedSourceIsRefusedQuicklyWithAClearError() {
        String crafted = "public ".repeat(6000) + "/* " + "\"'".repeat(3000); // 48 K chars, over the 32 K limit
        long before = guard.stats().refused(Refusal.FUNCTION_SOURCE_TOO_LARGE);
        ChainException e = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(ChainException.class,
                () -> client.runChain(ChainCall.to("guard", "echo").params("x")
                        .chainingFunction(ChainingFunctionSource.java(crafted)))));
        ChainingFunctionCompileException c = assertInstanceOf(ChainingFunctionCompileException.class, e);
        assertTrue(c.remoteMessage().contains("over this node's limit of 32768"), c.remoteMessage());
        assertEquals("guard", c.host());
        assertEquals(before + 1, guard.stats().refused(Refusal.FUNCTION_SOURCE_TOO_LARGE));
    }

    /**
     * Many distinct new functions from several clients at once: compilation runs on a small pool,
     * excess compilations are refused with a typed error, the JVM's thread count stays bounded, and
     * a chain whose function is compiled completes normally meanwhile.
     */
    @Test
    void aFloodOfNewFunctionsSlowsOnlyItself() throws Exception {
        warmUp();
        HostResources baseline = HostResources.now();
        int startThreads = ManagementFactory.getThreadMXBean().getThreadCount();
        List<RpccClient> flooders = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            flooders.add(cluster.client(b -> b.timeout(Duration.ofSeconds(60))));
        }
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger peakThreads = new AtomicInteger();
        List<CompletableFuture<?>> flood = new ArrayList<>();
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        for (int i = 0; i < 60; i++) {
            RpccClient c = flooders.get(i % flooders.size());
            ChainingFunctionSource fresh = attempt("int n" + i + " = " + i + ";", "");
            flood.add(CompletableFuture.supplyAsync(() -> c.runChain(ChainCall.to("guard", "echo").params("x")
                            .chainingFunction(fresh)), pool)
                    .handle((r, e) -> {
                        if (e != null && unwrap(e) instanceof ChainingFunctionCompileException ce
                                && ce.remoteMessage().contains("waiting to compile")) {
                            refused.incrementAndGet();
                        }
                        return null;
                    }));
        }
        for (int i = 0; i < 5; i++) {
            peakThreads.accumulateAndGet(ManagementFactory.getThreadMXBean().getThreadCount(), Math::max);
            assertEquals("x0,x1,x2", client.runChain("guard", "echo", "x", FINE, ChainState.empty()).value());
        }
        CompletableFuture.allOf(flood.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        peakThreads.accumulateAndGet(ManagementFactory.getThreadMXBean().getThreadCount(), Math::max);
        assertTrue(refused.get() > 0, "some compilations refused");
        assertTrue(guard.stats().refused(Refusal.COMPILE_QUEUE_FULL) >= refused.get());
        assertTrue(peakThreads.get() < startThreads + 40, "platform threads stayed bounded: " + startThreads + " → "
                + peakThreads.get());
        pool.close();
        for (RpccClient c : flooders) {
            c.close();
        }
        HostResources.assertBackTo(baseline, 8, 8, 32L << 20);
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
