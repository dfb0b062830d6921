package io.rpcc.function.java.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.HopFailure;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chaining functions compile against the classes the node's function class loader sees, read
 * through that loader: application types in a jar (with or without directory entries) or a
 * directory that rpcc's own loader cannot see, as in a standalone node's service jars.
 */
class FunctionClassPathTest {
    @TempDir
    static Path dir;
    private static Path classes;
    private static Path jar;
    /** Holds the threads a started node would hold for its runtime. */
    private static FunctionRuntime held;

    /** An application: a record type, a service-side helper and a class named like the function, compiled and jarred. */
    @BeforeAll
    static void buildApplication() throws IOException {
        held = FunctionRuntime.forNode(TypeRegistry.empty(), SandboxLimits.DEFAULT, 1).open();
        Path src = Files.createDirectories(dir.resolve("src/com/acme/svc"));
        Files.writeString(src.resolve("Order.java"), """
                package com.acme.svc;
                public record Order(String id, long cents) {
                    public Order withCents(long c) { return new Order(id, c); }
                }
                """);
        Files.writeString(src.resolve("Checkout.java"), """
                package com.acme.svc;
                public class Checkout implements io.rpcc.core.ChainingFunction {
                    public io.rpcc.core.NextHop apply(io.rpcc.core.ChainState state, Object result) {
                        return io.rpcc.core.NextHop.end("the application's own copy, not the shipped source");
                    }
                }
                """);
        classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "--release", "21", "-d", classes.toString(),
                "-classpath", System.getProperty("java.class.path"),
                src.resolve("Order.java").toString(), src.resolve("Checkout.java").toString());
        assertEquals(0, rc);
        jar = dir.resolve("svc.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) { // class entries only, no directory entries
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                out.write(Files.readAllBytes(f));
                out.closeEntry();
            }
        }
    }

    @AfterAll
    static void release() {
        held.close();
    }

    private static final String USES_ORDER = """
            package com.acme.fn;
            import com.acme.svc.Order;
            import io.rpcc.core.*;
            public class Discount implements ChainingFunction {
                public NextHop apply(ChainState state, Object result) {
                    Order order = (Order) result;
                    return NextHop.end(order.withCents(order.cents() * 9 / 10));
                }
            }
            """;

    private static FunctionRuntime runtime(ClassLoader loader, Class<?>... types) {
        return FunctionRuntime.forNode(TypeRegistry.of(types), SandboxLimits.DEFAULT, 16, 64 * 1024, 4, loader);
    }

    private static Object run(FunctionRuntime rt, String source, Object result) {
        NextHop next = rt.invoke(rt.load(ChainingFunctionSource.java(source)).function(), ChainState.empty(), result);
        return ((NextHop.End) next).result();
    }

    @Test
    void aFunctionUsesApplicationTypesFromAJarOnlyTheNodesLoaderSees() throws Exception {
        for (URL root : List.of(jar.toUri().toURL(), classes.toUri().toURL())) {
            try (URLClassLoader services = new URLClassLoader("rpcc-services", new URL[] {root},
                    FunctionClassPathTest.class.getClassLoader())) {
                Class<?> order = services.loadClass("com.acme.svc.Order");
                Object in = order.getConstructor(String.class, long.class).newInstance("o-1", 1000L);
                Object out = run(runtime(services, order), USES_ORDER, in);
                assertEquals(order.getConstructor(String.class, long.class).newInstance("o-1", 900L), out, root.toString());
            }
        }
    }

    /**
     * A jar whose manifest {@code Class-Path} names the jar with the types, as {@code java -jar rpcc-node.jar}
     * finds rpcc in the node distribution's {@code lib/}: the loader follows it, so must the compiler.
     */
    @Test
    void aFunctionUsesTypesOfTheJarsAJarsManifestClassPathNames() throws Exception {
        Path lib = Files.createDirectories(dir.resolve("dist/lib"));
        Files.copy(jar, lib.resolve("svc.jar"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        java.util.jar.Manifest manifest = new java.util.jar.Manifest();
        manifest.getMainAttributes().put(java.util.jar.Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(java.util.jar.Attributes.Name.CLASS_PATH, "lib/missing.jar  lib/svc.jar");
        Path launcher = dir.resolve("dist/launcher.jar");
        new JarOutputStream(Files.newOutputStream(launcher), manifest).close();
        try (URLClassLoader node = new URLClassLoader("node", new URL[] {launcher.toUri().toURL()},
                FunctionClassPathTest.class.getClassLoader())) {
            Class<?> order = node.loadClass("com.acme.svc.Order");
            Object in = order.getConstructor(String.class, long.class).newInstance("o-2", 2000L);
            Object out = run(runtime(node, order), USES_ORDER, in);
            assertEquals(order.getConstructor(String.class, long.class).newInstance("o-2", 1800L), out);
        }
    }

    @Test
    void aFunctionUsesApplicationTypesFromANamedModule() throws Exception {
        Path src = Files.createDirectories(dir.resolve("module-src/com/acme/svc"));
        Files.writeString(dir.resolve("module-src/module-info.java"), "module acme.svc { exports com.acme.svc; }");
        Files.writeString(src.resolve("Order.java"), """
                package com.acme.svc;
                public record Order(String id, long cents) {
                    public Order withCents(long c) { return new Order(id, c); }
                }
                """);
        Path out = Files.createDirectories(dir.resolve("module-classes"));
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, "--release", "21", "-d", out.toString(),
                dir.resolve("module-src/module-info.java").toString(), src.resolve("Order.java").toString()));
        Path modules = Files.createDirectories(dir.resolve("mods"));
        Path moduleJar = modules.resolve("acme-svc.jar");
        try (JarOutputStream jarOut = new JarOutputStream(Files.newOutputStream(moduleJar)); Stream<Path> files = Files.walk(out)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                jarOut.putNextEntry(new JarEntry(out.relativize(f).toString().replace('\\', '/')));
                jarOut.write(Files.readAllBytes(f));
                jarOut.closeEntry();
            }
        }
        java.lang.module.ModuleFinder finder = java.lang.module.ModuleFinder.of(modules);
        java.lang.module.Configuration config = ModuleLayer.boot().configuration()
                .resolve(finder, java.lang.module.ModuleFinder.of(), java.util.Set.of("acme.svc"));
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(config, FunctionClassPathTest.class.getClassLoader());
        ClassLoader loader = layer.findLoader("acme.svc");
        Class<?> order = loader.loadClass("com.acme.svc.Order");
        Object in = order.getConstructor(String.class, long.class).newInstance("o-2", 2000L);
        assertEquals(order.getConstructor(String.class, long.class).newInstance("o-2", 1800L),
                run(runtime(loader, order), USES_ORDER, in));
    }

    @Test
    void aTypeTheLoaderDoesNotSeeIsAClassPathErrorThatSaysWhatToDo() {
        HopFailure f = assertThrows(HopFailure.class,
                () -> runtime(FunctionClassPathTest.class.getClassLoader()).load(ChainingFunctionSource.java(USES_ORDER)));
        assertEquals(ChainErrorCode.CHAINING_FUNCTION_COMPILE, f.code());
        assertTrue(f.getMessage().contains("package com.acme.svc does not exist"), f.getMessage());
        assertTrue(f.getMessage().contains("package com.acme.svc is not on this node's class path"), f.getMessage());
        assertTrue(f.getMessage().contains("NodeBuilder.functionClassLoader"), f.getMessage());
        assertTrue(f.fields().diagnostics().get(0).line() == 2, f.fields().diagnostics().toString());
    }

    @Test
    void theShippedSourceRunsEvenWhereTheApplicationHasAClassOfTheSameName() throws Exception {
        try (URLClassLoader services = new URLClassLoader("rpcc-services", new URL[] {jar.toUri().toURL()},
                FunctionClassPathTest.class.getClassLoader())) {
            String shipped = """
                    package com.acme.svc;
                    import io.rpcc.core.*;
                    public class Checkout implements ChainingFunction {
                        public NextHop apply(ChainState state, Object result) { return NextHop.end("shipped"); }
                    }
                    """;
            assertEquals("shipped", run(runtime(services), shipped, null));
        }
    }

    @Test
    void aSandboxedFunctionRunsWhereTheNodesLoaderSeesRpccCoreButNotThisModule() {
        // the instrumented code calls the sandbox's Budget: it must resolve to this module's, however the
        // node's function class loader is made (before rpcc-function-java, Budget was in rpcc-core)
        String javaModule = Budget.class.getPackageName().substring(0, Budget.class.getPackageName().lastIndexOf('.') + 1);
        ClassLoader coreOnly = new ClassLoader("rpcc-core-only", FunctionClassPathTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.startsWith(javaModule)) {
                    throw new ClassNotFoundException(name);
                }
                return super.loadClass(name, resolve);
            }
        };
        String loops = """
                package com.acme.fn;
                import io.rpcc.core.*;
                public class Sum implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        int sum = 0;
                        for (int i = 0; i < 1000; i++) { sum += i; }
                        return NextHop.end(sum);
                    }
                }
                """;
        assertEquals(499500, run(runtime(coreOnly), loops, null));
    }

    @Test
    void aFunctionCannotReplaceRpccsOwnClassesForItself() {
        // its own classes load first: a Budget of its own (the sandbox's is in this module's package) would
        // switch off the sandbox's budget checks; one in rpcc-core's packages would replace the API and runtime
        for (String pkg : List.of(Budget.class.getPackageName(), "io.rpcc.core.internal.function", "io.rpcc.core")) {
            String shadow = """
                    package %s;
                    import io.rpcc.core.*;
                    public class Shadow implements ChainingFunction {
                        public NextHop apply(ChainState state, Object result) { return NextHop.end("escaped"); }
                    }
                    final class Budget {
                        static void charge(long n) { }
                    }
                    """.formatted(pkg);
            HopFailure f = assertThrows(HopFailure.class,
                    () -> runtime(FunctionClassPathTest.class.getClassLoader()).load(ChainingFunctionSource.java(shadow)));
            assertEquals(ChainErrorCode.CHAINING_FUNCTION_COMPILE, f.code(), f.getMessage());
            assertTrue(f.getMessage().contains("in rpcc's own package " + pkg + "; put the function in "
                    + "a package of your own"), f.getMessage());
        }
        // rpcc's other packages, io.rpcc.examples for one, are the application's to use
        String example = """
                package io.rpcc.examples.fn;
                import io.rpcc.core.*;
                public class Example implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) { return NextHop.end("fine"); }
                }
                """;
        assertEquals("fine", run(runtime(FunctionClassPathTest.class.getClassLoader()), example, null));
    }

    @Test
    void aTypeJavacInferredAndTheSandboxRefusesIsExplainedWithItsLine() {
        String inferred = """
                import io.rpcc.core.*;
                import java.util.List;
                public class Mixed implements ChainingFunction { // not Serializable: a comment does not count
                    public NextHop apply(ChainState state, Object result) {
                        var items = List.of("a", 1L, "b");
                        var first = items.get(0);
                        return NextHop.end(first.toString());
                    }
                }
                """;
        HopFailure f = assertThrows(HopFailure.class,
                () -> runtime(FunctionClassPathTest.class.getClassLoader()).load(ChainingFunctionSource.java(inferred)));
        assertEquals(ChainErrorCode.SANDBOX_VIOLATION, f.code(), f.getMessage());
        assertTrue(f.getMessage().contains("(line 6)"), f.getMessage());
        assertTrue(f.getMessage().contains("javac inferred it"), f.getMessage());
        assertTrue(f.getMessage().contains("List.<Object>of(...)"), f.getMessage());
        String fixed = inferred.replace("var items = List.of(", "var items = List.<Object>of(")
                .replace("var first", "Object first");
        assertEquals("a", run(runtime(FunctionClassPathTest.class.getClassLoader()), fixed, null));
    }

    @Test
    void aTypeTheSourceNamesGetsNoInferenceHint() {
        String named = """
                import io.rpcc.core.*;
                public class Files2 implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        return NextHop.end(new java.io.File("/etc/passwd").exists());
                    }
                }
                """;
        HopFailure f = assertThrows(HopFailure.class,
                () -> runtime(FunctionClassPathTest.class.getClassLoader()).load(ChainingFunctionSource.java(named)));
        assertEquals(ChainErrorCode.SANDBOX_VIOLATION, f.code());
        assertTrue(f.getMessage().contains("java.io.File") && f.getMessage().contains("(line 4)"), f.getMessage());
        assertTrue(!f.getMessage().contains("inferred"), f.getMessage());
    }
}
