package io.rpcc.js;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.server.RpccServer;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * JavaScript chaining functions that try to leave the sandbox: each must end its chain with a
 * {@link SandboxViolationException} naming the rule and the hop, and the server must answer the
 * next chain normally.
 */
class JsSandboxEscapeTest {
    record Secret(String value) {
    }

    static final StaticNameResolver names = new StaticNameResolver();
    static RpccServer guard;
    static RpccClient client;

    @BeforeAll
    static void start() {
        guard = RpccServer.builder("guard").resolver(names)
                .types(io.rpcc.core.TypeRegistry.of(Secret.class))
                .sandbox(new SandboxLimits(Duration.ofMillis(300), 32L << 20, Duration.ofSeconds(3)))
                .service("echo", p -> p).build().start();
        names.register("guard", guard.address());
        client = RpccClient.builder().resolver(names).types(io.rpcc.core.TypeRegistry.of(Secret.class))
                .timeout(Duration.ofSeconds(20)).build().start();
    }

    @AfterAll
    static void stop() {
        client.close();
        guard.close();
    }

    @AfterEach
    void serverStillServes() {
        ChainingFunctionSource ok = ChainingFunctionSource.javascript(
                "(state, result) => rpcc.end([1, 2, 3].map(i => result + i).join(','))");
        assertEquals("x1,x2,x3", client.runChain("guard", "echo", "x", ok, ChainState.empty()).value());
    }

    static Stream<Arguments> attempts() {
        return Stream.of(
                Arguments.of("Java.type", "Java.type('java.lang.Runtime').getRuntime().exec('id')", "host-access"),
                Arguments.of("Java.type caught", "try { Java.type('java.lang.System') } catch (e) { }", "host-access"),
                Arguments.of("Packages", "Packages.java.lang.System.exit(1)", "host-access"),
                Arguments.of("java global", "java.lang.Runtime.getRuntime()", "host-access"),
                Arguments.of("JavaImporter", "new JavaImporter(java.io)", "host-access"),
                Arguments.of("importPackage", "importPackage('java.io')", "host-access"),
                Arguments.of("Polyglot.eval", "Polyglot.eval('python', 'import os')", "polyglot"),
                Arguments.of("Polyglot.import", "Polyglot.import('secret')", "polyglot"),
                Arguments.of("load", "load('/etc/passwd')", "files"),
                Arguments.of("loadWithNewGlobal", "loadWithNewGlobal({script: '1', name: 'x'})", "files"),
                Arguments.of("read", "read('/etc/passwd')", "files"),
                Arguments.of("readline", "readline()", "files"),
                Arguments.of("quit", "quit()", "exit"),
                Arguments.of("exit", "exit(1)", "exit"),
                Arguments.of("require", "require('child_process').execSync('id')", "class-loading"),
                Arguments.of("process.env", "process.env.PATH", "environment"),
                Arguments.of("Worker", "new Worker('x.js')", "threads"),
                Arguments.of("Atomics.wait", "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)", "threads"),
                Arguments.of("getClass on a host value", "state.secret.getClass().forName('java.lang.Runtime')", "reflection"),
                Arguments.of("class of the state", "state.class", "reflection"),
                Arguments.of("tampering with a host value", "state.secret.value = 'changed'", "host-access"),
                Arguments.of("writing into a host array", "state.list[0] = 9", "host-access"),
                Arguments.of("getClassLoader", "state.list.getClassLoader()", "reflection"),
                Arguments.of("eval of an escape", "eval(\"Java.type('java.io.File')\")", "host-access"),
                Arguments.of("Function constructor", "new Function(\"return Polyglot.eval('js', '1')\")()", "polyglot"),
                Arguments.of("globalThis lookup", "globalThis['Ja' + 'va'].type('java.lang.Thread')", "host-access"),
                Arguments.of("infinite loop", "while (true) { }", "cpu-time"),
                Arguments.of("loop swallowing errors", "while (true) { try { for (;;) { } } catch (e) { } }", "cpu-time"),
                Arguments.of("deep recursion", "(function f(n) { return f(n + 1) + 1; })(0)", "stack-depth"),
                Arguments.of("one huge buffer", "const b = new ArrayBuffer(256 << 20); b.byteLength", "memory"),
                Arguments.of("allocation in a loop", "const a = []; while (true) { a.push(new ArrayBuffer(1 << 20)); }", "memory"),
                Arguments.of("huge string", "let s = 'x'; while (true) { s = s + s; }", "memory"),
                Arguments.of("big typed arrays", "const keep = []; while (true) keep.push(new Float64Array(1 << 20));", "memory"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("attempts")
    void everyEscapeIsDenied(String name, String code, String rule) {
        ChainingFunctionSource attempt = ChainingFunctionSource.javascript(
                "(state, result) => { " + code + "; return rpcc.end('escaped'); }");
        ChainException e = assertThrows(ChainException.class, () -> client.runChain("guard", "echo", "x", attempt,
                ChainState.of("secret", new Secret("s3cret"), "list", List.of(1, 2))));
        SandboxViolationException v = assertInstanceOf(SandboxViolationException.class, e, () -> name + ": " + e);
        assertEquals(rule, v.rule(), () -> name + ": " + v.getMessage());
        assertEquals("guard", v.host());
        assertEquals(1, v.hop());
    }

    @Test
    void thereAreAtLeast25DistinctAttempts() {
        assertTrue(attempts().count() >= 25);
    }

    @Test
    void tamperingWithBuiltInsDoesNotOutliveTheInvocation() {
        ChainingFunctionSource tamper = ChainingFunctionSource.javascript(
                "(state, result) => { Array.prototype.map = () => 'hijacked'; Object.prototype.x = 1; return rpcc.end('ok'); }");
        assertEquals("ok", client.runChain("guard", "echo", "x", tamper, ChainState.empty()).value());
        // serverStillServes() then runs [1, 2, 3].map(...) in a fresh context: it must not see the tampering.
    }
}
