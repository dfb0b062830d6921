package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.SandboxViolationException;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Java chaining functions that try to leave the sandbox. Every attempt must end its chain with a
 * {@link SandboxViolationException} naming the rule, the hop and the host, and the server must
 * answer the next chain normally.
 */
class JavaSandboxEscapeTest {
    static Cluster cluster;
    static RpccClient client;

    @BeforeAll
    static void start() {
        cluster = new Cluster();
        cluster.server("guard", b -> b
                .sandbox(new SandboxLimits(Duration.ofMillis(200), 16L << 20, Duration.ofSeconds(2)))
                .service("echo", p -> p));
        client = cluster.client(b -> b.timeout(Duration.ofSeconds(20)));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @AfterEach
    void serverStillServes() {
        ChainingFunctionSource ok = ChainingFunctionSource.java("""
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
        assertEquals("x0,x1,x2", client.runChain("guard", "echo", "x", ok, ChainState.empty()).value());
    }

    /** A chaining function whose body is {@code body}, plus {@code extra} members. */
    static ChainingFunctionSource attempt(String body, String extra) {
        return ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                import java.util.*;
                public class Attempt implements ChainingFunction {
                    %s
                    public NextHop apply(ChainState state, Object result) throws Exception {
                        %s
                        return NextHop.end("escaped");
                    }
                }
                """.formatted(extra, body));
    }

    static Stream<Arguments> attempts() {
        return Stream.of(
                Arguments.of("Class.forName", "Class.forName(\"java.lang.Runtime\");", "", "class-loading"),
                Arguments.of("getDeclaredMethods", "Object o = \"x\".getClass().getDeclaredMethods();", "", "reflection"),
                Arguments.of("Field.setAccessible", "String.class.getDeclaredField(\"value\").setAccessible(true);", "", "reflection"),
                Arguments.of("Method.invoke", "java.lang.reflect.Method m = null; if (result == null) m.invoke(null);", "", "reflection"),
                Arguments.of("MethodHandles.lookup", "java.lang.invoke.MethodHandles.lookup();", "", "method-handles"),
                Arguments.of("Unsafe", "Object u = sun.misc.Unsafe.class;", "", "unsafe"),
                Arguments.of("new Thread", "new Thread(() -> {}).start();", "", "threads"),
                Arguments.of("virtual thread", "Thread.ofVirtual().start(() -> {});", "", "threads"),
                Arguments.of("Thread.sleep", "Thread.sleep(10);", "", "threads"),
                Arguments.of("executor", "java.util.concurrent.Executors.newSingleThreadExecutor();", "", "threads"),
                Arguments.of("parallel stream", "List.of(1, 2).parallelStream().count();", "", "threads"),
                Arguments.of("Object.wait", "synchronized (this) { this.wait(1); }", "", "threads"),
                Arguments.of("ChainContext.startThread", "ChainContext.current().startThread(() -> {});", "", "threads"),
                Arguments.of("ProcessBuilder", "new ProcessBuilder(\"id\").start();", "", "processes"),
                Arguments.of("Runtime.exec", "Runtime.getRuntime().exec(new String[] {\"id\"});", "", "processes"),
                Arguments.of("Runtime.halt", "Runtime.getRuntime().halt(1);", "", "processes"),
                Arguments.of("File", "new java.io.File(\"/etc/passwd\").exists();", "", "files"),
                Arguments.of("Files.readString", "java.nio.file.Files.readString(java.nio.file.Path.of(\"/etc/passwd\"));", "", "files"),
                Arguments.of("FileOutputStream", "new java.io.FileOutputStream(\"/tmp/rpcc-escape\").close();", "", "files"),
                Arguments.of("System.out", "System.out.println(\"hi\");", "", "files"),
                Arguments.of("Socket", "new java.net.Socket(\"127.0.0.1\", 9).close();", "", "network"),
                Arguments.of("URL", "new java.net.URI(\"http://127.0.0.1/\").toURL().openStream();", "", "network"),
                Arguments.of("System.exit", "System.exit(3);", "", "exit"),
                Arguments.of("System.getenv", "System.getenv(\"PATH\");", "", "environment"),
                Arguments.of("System.getProperty", "System.getProperty(\"user.home\");", "", "system-properties"),
                Arguments.of("System.setProperty", "System.setProperty(\"x\", \"y\");", "", "system-properties"),
                Arguments.of("System.loadLibrary", "System.loadLibrary(\"c\");", "", "native-code"),
                Arguments.of("URLClassLoader", "new java.net.URLClassLoader(new java.net.URL[0]);", "", "class-loading"),
                Arguments.of("system class loader", "ClassLoader.getSystemClassLoader();", "", "class-loading"),
                Arguments.of("static initializer", "new Evil();", "static class Evil { static { System.exit(4); } }", "exit"),
                Arguments.of("native method", "", "static native void evil();", "native-code"),
                Arguments.of("rpcc internals", "Object b = io.rpcc.function.java.internal.Budget.class;", "", "rpcc-internals"),
                Arguments.of("rpcc core internals", "Object r = io.rpcc.core.internal.function.FunctionRuntime.class;", "", "rpcc-internals"),
                Arguments.of("catch Throwable", "try { result.hashCode(); } catch (Throwable t) { }", "", "catch-error"),
                Arguments.of("catch StackOverflowError", "try { result.hashCode(); } catch (StackOverflowError t) { }", "", "catch-error"),
                Arguments.of("infinite loop", "long n = 0; while (result != null) { n++; }", "", "cpu-time"),
                Arguments.of("loop swallowed by finally", "try { while (result != null) { } } finally { if (result != null) return NextHop.end(\"escaped\"); }", "", "cpu-time"),
                Arguments.of("deep recursion", "deep(1);", "static int deep(int n) { return deep(n + 1) + 1; }", "stack-depth"),
                Arguments.of("huge array", "long[] a = new long[1 << 28];", "", "memory"),
                Arguments.of("huge buffer", "new StringBuilder(Integer.MAX_VALUE - 16);", "", "memory"),
                Arguments.of("String.repeat", "\"x\".repeat(1 << 30);", "", "memory"),
                Arguments.of("allocation in a loop", "List<byte[]> keep = new ArrayList<>(); while (result != null) keep.add(new byte[4096]);", "", "memory"),
                Arguments.of("regex backtracking", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\".matches(\"(a+)+b\");", "", "cpu-time"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("attempts")
    void everyEscapeIsDenied(String name, String body, String extra, String rule) {
        ChainException e = assertThrows(ChainException.class, () -> client.runChain(
                ChainCall.to("guard", "echo").params("x").chainingFunction(attempt(body, extra))));
        SandboxViolationException v = assertInstanceOf(SandboxViolationException.class, e, () -> name + ": " + e);
        assertEquals(rule, v.rule(), () -> name + ": " + v.getMessage());
        assertEquals("guard", v.host());
        assertEquals(1, v.hop());
        assertEquals(java.util.List.of("guard"), v.path());
    }

    @Test
    void thereAreAtLeast25DistinctAttempts() {
        assertTrue(attempts().count() >= 25);
    }

    @Test
    void ordinaryCodeIsAllowed() {
        ChainingFunctionSource rich = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                import java.util.*;
                import java.util.stream.*;
                import java.math.BigDecimal;
                public class Rich implements ChainingFunction {
                    record Item(String name, int qty) { }
                    enum Kind { A, B }
                    public NextHop apply(ChainState state, Object result) {
                        List<Item> items = new ArrayList<>(List.of(new Item("a", 2), new Item("b", 3)));
                        Map<String, Integer> m = items.stream().collect(Collectors.toMap(Item::name, Item::qty));
                        int total = m.values().stream().mapToInt(Integer::intValue).sum();
                        String kind = switch (Kind.valueOf("B")) { case A -> "a"; case B -> "b"; };
                        Object o = result;
                        String s = o instanceof String str ? str.toUpperCase() : "?";
                        ChainContext.current().console().println("total " + total);
                        BigDecimal price = new BigDecimal("1.50").multiply(BigDecimal.valueOf(total));
                        int[] arr = new int[16];
                        Arrays.fill(arr, 1);
                        return NextHop.end(s + kind + total + ":" + price + ":" + Arrays.stream(arr).sum()
                                + ":" + items.get(0) + ":" + Math.max(3, 4) + ":" + Integer.class.getSimpleName());
                    }
                }
                """);
        assertEquals("Xb5:7.50:16:Item[name=a, qty=2]:4:Integer",
                client.runChain("guard", "echo", "x", rich, ChainState.empty()).value());
    }
}
